"""What the offline summarizer may quote: units that go on across paragraphs, text after code,
code lines that are no entries, connectives that point back."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from indexer.summarizers.cues import leans_back
from indexer.summarizers.units import listing, units_of


def _units(text: str) -> list[str]:
    return [u.text for u in units_of([(0, text)])]


def test_a_paragraph_leaning_back_goes_on_from_the_paragraph_before() -> None:
    text = (
        "The daemon rereads its configuration on SIGHUP.\n\n"
        "However, open connections keep the old settings until they close.\n\n"
        "Logs go to the system journal."
    )
    units = _units(text)
    assert (
        "The daemon rereads its configuration on SIGHUP. However, open connections keep the old"
        " settings until they close."
    ) in units
    assert not any(u.startswith("However") for u in units)
    # Each unit's spans still slice sentences of the source, one per paragraph.
    found = units_of([(0, text)])[0]
    assert [text[a:b] for a, b in found.spans] == [
        "The daemon rereads its configuration on SIGHUP.",
        "However, open connections keep the old settings until they close.",
    ]


def test_nothing_goes_on_from_a_list_or_into_a_lead_in() -> None:
    text = (
        "Two modes are supported:\n\n- fast\n\n- safe\n\n"
        "However, the safe mode is slower.\n\n"
        "The cache is optional. This is described in the following: see below."
    )
    units = _units(text)
    assert not any("However" in u for u in units), units  # its antecedent is a list
    assert "The cache is optional." in units
    assert not any("following" in u for u in units)


def test_a_statement_after_code_speaks_of_the_code() -> None:
    text = (
        "The logs should have lines like:\n\n"
        "    Fetching example.net/RSASHA256/31729 (KSK) from key repository.\n"
        "    DNSKEY example.net/RSASHA256/31729 (KSK) is now published\n\n"
        "For zones to be re-signed, the daemon must have access to the PIN.\n\n"
        "Run the container with limits:\n\n"
        "    docker run -m 300M --memory-swap 1G ubuntu\n\n"
        "We set both memory and swap, so the container can use 300M of memory."
    )
    # Worded as a rule, but what follows an example may be about the example: never quoted
    # alone, only going on from the unit that quotes the example with its lead-in.
    units = units_of([(0, text)])
    zones = next(u for u in units if u.text.startswith("For zones"))
    assert not zones.opens and zones.after
    assert units[zones.order - 1].text.startswith("The logs should have lines like: `Fetching")
    correct = "The following is incorrect:\n\n    Version ::=INTEGER\n\nThe correct form is:\n\n"
    both = units_of([(0, correct + "    Version ::= INTEGER")])
    assert [(u.text, u.opens, u.after) for u in both] == [
        ("The following is incorrect: `Version ::=INTEGER`.", True, False),
        ("The correct form is: `Version ::= INTEGER`.", False, True),  # only after the other
    ]


def test_a_call_in_code_is_no_entry_over_the_paragraph_below() -> None:
    text = (
        "To find out how the result is used, read on:\n\n"
        "    write_or_die(1, buf, size);\n\n"
        "Sometimes you do not know where to look for a feature in the source."
    )
    from indexer.summarizers.blocks import blocks_of
    from indexer.summarizers.terms import term_of

    blocks = blocks_of(text, 0)
    assert [b.kind for b in blocks] == ["paragraph", "code", "paragraph"]
    assert term_of(blocks[1], blocks[2]) is None
    assert not any(u.startswith("write_or_die") for u in _units(text))


def test_indeed_and_in_particular_point_back() -> None:
    assert leans_back("Indeed the code requires that the maximum be representable.")
    assert leans_back("The notation to access the type of the definition above is A.B.")
    assert not leans_back("Alerts fire when the load rises above 90 % for a minute.")
    assert leans_back("In particular, the flag is cleared on every call.")
    assert not leans_back("The flag is cleared on every call.")


def test_a_lead_in_whose_subject_is_code_is_not_quoted() -> None:
    text = (
        "Remote branches are configured per remote.\n\n"
        "    $ git remote add example git://example.com/proj.git\n\n"
        "adds the following to .git/config:\n\n"
        "- a url line\n\n- a fetch line"
    )
    units = _units(text)
    assert units == ["Remote branches are configured per remote."], units


def test_fenced_code_is_one_block_of_code_blank_lines_and_all() -> None:
    from indexer.summarizers.blocks import blocks_of

    text = (
        "Limit the memory:\n\n```console\n$ docker run -m 300M ubuntu\n\n"
        "$ docker run -m 1G ubuntu\n```\n\n"
        "We set the memory, so the container can use 300M."
    )
    kinds = [(b.kind, b.text) for b in blocks_of(text, 0)]
    assert kinds == [
        ("paragraph", "Limit the memory:"),
        ("code", "$ docker run -m 300M ubuntu\n\n$ docker run -m 1G ubuntu"),  # fences left out
        ("paragraph", "We set the memory, so the container can use 300M."),
    ]
    # it speaks of the example: quoted only going on from the example's unit
    assert [(u.text[:6], u.opens, u.after) for u in units_of([(0, text)])] == [
        ("Limit ", True, False),
        ("We set", False, True),
    ]


def test_a_lead_in_to_a_list_of_page_references_is_not_quoted() -> None:
    text = (
        "Simple types have their own functions.\n\n"
        "The simple parsing functions listed below may be used instead:\n\n"
        "- [asn1 decode simple der], page 22\n\n- [asn1 encode simple der], page 16"
    )
    assert _units(text) == ["Simple types have their own functions."]
    assert listing([(0, "- [asn1 decode], page 22\n\n- [asn1 encode], page 16")]) is None


def test_a_sentence_written_around_a_line_of_code_is_quoted_whole() -> None:
    text = (
        "Only volumes specified without a name are removed. For example, when running:\n\n"
        "```console\n$ docker run --rm -v /foo -v awesome:/bar busybox top\n```\n\n"
        "the volume for /foo will be removed, but the volume for /bar will not.\n\n"
        "You can edit the index to fix your mistake, then run\n\n"
        "$ git commit --amend\n\n"
        "which will replace the old commit by a new one. Again, never do this to a"
        " published commit."
    )
    units = units_of([(0, text)])
    assert [u.text for u in units] == [
        "Only volumes specified without a name are removed. For example, when running: `$ docker"
        " run --rm -v /foo -v awesome:/bar busybox top` the volume for /foo will be removed, but"
        " the volume for /bar will not.",
        "You can edit the index to fix your mistake, then run `$ git commit --amend` which will"
        " replace the old commit by a new one. Again, never do this to a published commit.",
    ]
    # The spans still slice the source: from the sentence's head to its tail, code between.
    a, b = units[1].spans[0]
    assert text[a:].startswith("You can edit") and "git commit --amend" in text[a:b]


def test_a_lead_in_to_code_the_sentence_goes_on_after_is_not_quoted_alone() -> None:
    text = (
        "Only volumes specified without a name are removed. For example, when running:\n\n"
        "```console\n$ docker run --rm -v /foo -v awesome:/bar busybox top\n"
        "$ docker run --rm -v /baz busybox top\n$ docker ps\n```\n\n"
        "the volume for /foo will be removed, but the volume for /bar will not."
    )
    assert _units(text) == ["Only volumes specified without a name are removed."]


def test_the_summaries_cache_key_changes_with_the_summarizers_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from indexer.summarizers import fingerprint
    from indexer.summarizers.extractive import ExtractiveSummarizer

    version = ExtractiveSummarizer().identity.prompt_version
    assert version == f"extractive-v20+{fingerprint.code_fingerprint()}"
    copy = tmp_path / "summarizers"
    shutil.copytree(Path(fingerprint.__file__).parent, copy)
    for name in ("words.py", "tokens.py"):
        shutil.copy(Path(fingerprint.__file__).parent.parent / name, tmp_path / name)
    monkeypatch.setattr(fingerprint, "_HERE", copy)
    assert fingerprint.code_fingerprint() == version.split("+")[1]
    rules = copy / "cues.py"
    rules.write_text(rules.read_text() + "\n# a changed rule\n")
    assert fingerprint.code_fingerprint() != version.split("+")[1]


@pytest.mark.parametrize(
    ("sentence", "back"),
    [
        ("If, however, the author name changed, the wrong author could appear.", True),
        ("The answer is simple, though.", True),
        ("The problem is which lines should be attached to diverted text.", True),
        ("To do this, both parameters must be given.", True),
        ("If omitted, flags defaults to aeq.", True),
        ("In other places they will not work properly.", True),
        ("Restart the daemon from that revision on.", True),
        ("Keep the key in the same directory.", True),
        ("Default it is always local, so they must be copied first.", True),
        ("Keep the key in the same format as the certificate.", False),
        ("Spool files are read in order, then they are deleted.", False),
        ("The difference between the two modes is the checksum.", False),
        ("Postfix configuration files are in /etc/postfix by default.", False),
    ],
)
def test_what_points_back_inside_a_sentence(sentence: str, back: bool) -> None:
    assert leans_back(sentence) is back


def test_statements_about_a_listing_or_in_the_first_person_are_not_quoted() -> None:
    text = (
        "The gateway forwards mail for the domain to an inside machine.\n\n"
        "Lines 3-8: Disable local mail delivery on the firewall machine.\n\n"
        "I need the fancy style from chapter 1 on, but not before it.\n\n"
        "Relay access is denied to every other client."
    )
    units = _units(text)
    assert "The gateway forwards mail for the domain to an inside machine." in units
    assert "Relay access is denied to every other client." in units
    assert not any(u.startswith(("Lines", "I need")) for u in units), units


def test_a_lead_in_that_counts_is_taken_only_with_as_many() -> None:
    text = (
        "Two modes are supported:\n\n- fast\n\n- safe\n\n"
        "This document contains four parts: Part I documents the user commands.\n\n"
        "Headers are printed on every page.\n\n"
        "Two additional variables are always set:\n\n"
        "REDIRECT_URL\n\n"
        "The URL-path of the original request before the redirect."
    )
    units = _units(text)
    assert not any("Two additional" in u or "four parts" in u for u in units), units
    assert any(u.startswith("Two modes are supported:") and "safe" in u for u in units), units
    assert "Headers are printed on every page." in units


def test_a_numbered_step_is_not_quoted_alone() -> None:
    text = (
        "1. Install the package with the system's package manager.\n"
        "2. Edit the main configuration file.\n\n"
        "- The daemon starts at boot.\n"
        "- The daemon logs to the journal."
    )
    units = _units(text)
    assert not any(u.startswith(("Install", "Edit")) for u in units), units
    assert "The daemon starts at boot." in units


def test_a_quantity_before_a_colon_is_no_count_of_what_follows() -> None:
    text = "Error code E-17 means motor power below 30 % of rated for 20 seconds: the pump ran dry."
    assert _units(text) == [text]
