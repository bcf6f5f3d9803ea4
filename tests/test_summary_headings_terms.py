"""What a section's text opens with: its Markdown heading line is a
heading, not a line of code whose paragraph would only speak of it; a sentence may open with a
code span; one entry under several names is quoted under all of them; a section whose one
sentence points elsewhere is summarized by that sentence."""

from __future__ import annotations

import pytest

from indexer.sourced import SourcedSentence
from indexer.summarizers.base import ChildSummary, SummaryRequest
from indexer.summarizers.blocks import blocks_of
from indexer.summarizers.extractive import ExtractiveSummarizer
from indexer.summarizers.framing import NO_STATEMENT
from indexer.summarizers.units import units_of


def _units(text: str) -> list[str]:
    return [u.text for u in units_of([(0, text)])]


def _summary(title: str, text: str) -> list[str]:
    request = SummaryRequest("k", "section", title, [title], [text], passage_starts=[0])
    return [s.text for s in ExtractiveSummarizer().summarize_one(request).sentences]


@pytest.mark.parametrize("line", ["### USER", "## Run", "# Overview"])
def test_a_heading_line_is_a_heading(line: str) -> None:
    blocks = blocks_of(f"{line}\n\nThe default user is root within a container.", 0)
    assert [b.kind for b in blocks] == ["heading", "paragraph"]


@pytest.mark.parametrize("line", ["# apt install postfix", "1. Install the package", "10 files"])
def test_a_prompt_a_step_or_a_count_is_no_heading(line: str) -> None:
    assert blocks_of(line, 0)[0].kind != "heading"


def test_the_paragraph_under_a_short_heading_opens_the_section() -> None:
    text = (
        "### USER\n\n"
        "`root` (id = 0) is the default user within a container. The image developer can\n"
        "create additional users.\n\n"
        "The operator can override the user by passing the -u option."
    )
    units = _units(text)
    # Read as code, the heading made its paragraph "text about that code", never quoted: the
    # section's default was lost.
    assert units[0] == "root (id = 0) is the default user within a container."
    assert "The image developer can create additional users." in units
    summary = _summary("USER", text)
    assert summary[0].startswith("root (id = 0) is the default user"), summary


def test_one_option_under_two_names_is_quoted_under_both() -> None:
    text = (
        "Options for the frozen state.\n\n"
        "-F file\n--freeze-state=file\n\n"
        "Once execution is finished, write out the frozen state on the specified file.\n\n"
        "-R file\n--reload-state=file\n\n"
        "Before execution starts, recover the internal state from the specified frozen file."
    )
    units = _units(text)
    assert (
        "-F, --freeze-state: Once execution is finished, write out the frozen state on the"
        " specified file."
    ) in units
    assert any(u.startswith("-R, --reload-state: Before execution starts") for u in units)
    # Without its option the instruction would be no unit at all.
    assert not any(u.startswith("Once execution") for u in units)


def test_macros_described_together_are_named_together() -> None:
    text = (
        "Builtin: include (file)\nBuiltin: sinclude (file)\n\n"
        "Both macros cause the file named file to be read by m4."
    )
    units = _units(text)
    assert units == ["include, sinclude: Both macros cause the file named file to be read by m4."]
    spans = units_of([(0, text)])[0].spans
    assert text[spans[0][0] : spans[0][1]].endswith("sinclude"), spans


def test_a_section_of_one_pointer_says_where_it_points() -> None:
    text = (
        "5.5.1. Prerequisites\n\n"
        "See the documentation provided by the HSM vendor for information about installing,"
        " initializing and testing the HSM."
    )
    summary = _summary("Prerequisites", text)
    assert summary == [
        "See the documentation provided by the HSM vendor for information about installing,"
        " initializing and testing the HSM."
    ]
    # A sentence cut inside a quotation is no statement; nor is code: the section says so.
    cut = _summary("Titles", "34 Titles\n\nI got a question like this: “I redefined the style.\n")
    assert len(cut) == 1 and NO_STATEMENT in cut[0], cut
    code_only = _summary("Setup", "5.5.2. Setup\n\n    make && make install\n")
    assert len(code_only) == 1 and NO_STATEMENT in code_only[0]


def test_an_entry_is_described_by_its_first_statement_not_its_first_paragraph() -> None:
    text = (
        "asn1 strerror\n\n"
        "const char * asn1_strerror (int error)\n\n"
        "error: is an error returned by a libtasn1 function.\n\n"
        "Returns a string with a description of an error.\n\n"
        "asn1 perror\n\n"
        "void asn1_perror (int error)\n\n"
        "Prints a string to stderr with a description of an error.\n\n"
        "The error string is never freed."
    )
    units = _units(text)
    assert "asn1_strerror: Returns a string with a description of an error." in units
    assert any(
        u.endswith(": Prints a string to stderr with a description of an error.") for u in units
    )
    # Once the entry has said something, a further paragraph is no longer known to be its.
    assert not any("never freed" in u for u in units), units


def test_an_example_with_its_result_lines_is_code() -> None:
    text = (
        "If output is diverted to a negative diversion, it is simply discarded.\n\n"
        "We decided to divert the stream for irrigation.\n"
        "⇒We decided to the stream for irrigation.\n"
        "divert(`-1')\nIgnored text.\n\n"
        "The current diversion is changed to number."
    )
    assert [b.kind for b in blocks_of(text, 0)] == ["paragraph", "code", "paragraph"]
    units = _units(text)
    # The example's input line is no statement of the manual, with its result or without.
    assert not any("irrigation" in u for u in units), units
    assert "If output is diverted to a negative diversion, it is simply discarded." in units


def test_prose_naming_an_address_in_parentheses_declares_no_function() -> None:
    text = (
        "Libidn2 is an implementation of IDNA2008.\n"
        "Libidn2 uses GNU libunistring (https://www.gnu.org/software/libunistring/\n"
        ") for Unicode processing.\n\n"
        "The library is dual-licensed under LGPLv3 or GPLv2."
    )
    units = _units(text)
    assert "The library is dual-licensed under LGPLv3 or GPLv2." in units
    assert not any(u.startswith("libunistring:") for u in units), units


def test_a_part_whose_lead_is_long_is_named_by_how_it_opens() -> None:
    lead = SourcedSentence(
        "Libidn2 is a free implementation of IDNA2008, Punycode and TR46. Its purpose is to"
        " encode and decode internationalized domain names. The library is a rewrite of the"
        " popular but legacy libidn library, and is backwards (API) compatible with it, as long"
        " as applications use the documented interfaces and link against the new library"
        " instead of the old one, which most distributions still ship for older programs.",
        ((10, 80), (81, 150), (151, 400)),
        "lead",
    )
    other = SourcedSentence("The library is dual-licensed.", ((500, 530),), "statement")
    parts = [
        ChildSummary("Introduction", lead.text, [lead, other], heading=(0, 9), passages=3),
        ChildSummary("Examples", "Examples show it.", heading=(600, 608), passages=1),
    ]
    request = SummaryRequest("k", "document", "Libidn2", ["Libidn2"], [])
    request.children = parts
    sentences = ExtractiveSummarizer().summarize_one(request).sentences
    intro = sentences[0]
    assert intro.text == (
        "Introduction: Libidn2 is a free implementation of IDNA2008, Punycode and TR46. Its"
        " purpose is to encode and decode internationalized domain names. The library is"
        " dual-licensed."
    ), sentences
    # The document saying little, the part's further statement joins its line; the rest of
    # the long lead, already quoted in part, does not.
    assert intro.spans == ((0, 9), (10, 80), (81, 150), (500, 530))
    # A lead whose spans are not one per sentence (a lead-in with its list) is never cut.
    listed = SourcedSentence(lead.text, ((10, 400),), "lead")
    parts[0] = ChildSummary("Introduction", lead.text, [listed, other], heading=(0, 9))
    sentences = ExtractiveSummarizer().summarize_one(request).sentences
    assert sentences[0].text == "Introduction: The library is dual-licensed.", sentences
