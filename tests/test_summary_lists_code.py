"""What a quoted lead-in takes with it: a list whose items stand apart is not quoted by its
first item, code too long to quote whole leaves the sentences before it alone, a part line
never cuts a lead-in from its items; text fenced as code is code; an initial ends no sentence."""

from __future__ import annotations

from indexer.sourced import SourcedSentence
from indexer.summarizers.base import ChildSummary, SummaryRequest
from indexer.summarizers.blocks import blocks_of
from indexer.summarizers.extractive import ExtractiveSummarizer
from indexer.summarizers.framing import NO_STATEMENT
from indexer.summarizers.sentences import split_sentences
from indexer.summarizers.units import units_of


def _units(text: str) -> list[str]:
    return [u.text for u in units_of([(0, text)])]


def _summary(title: str, text: str) -> list[str]:
    request = SummaryRequest("k", "section", title, [title], [text], passage_starts=[0])
    return [s.text for s in ExtractiveSummarizer().summarize_one(request).sentences]


def test_a_list_whose_items_stand_apart_is_not_quoted_by_its_first_item() -> None:
    text = (
        "There are a few other incompatibilities between this version and the older one.\n\n"
        "- Sync lines are written when text is diverted, not when it is brought back.\n\n"
        "The problem is which lines should be attached to diverted text.\n\n"
        "The option is used mostly with a compiler front end.\n\n"
        "- Self-referential definitions are not prohibited.\n"
    )
    units = _units(text)
    # Its first item under the lead-in never reads as the whole list of incompatibilities:
    # the item after the first one's explanation is counted.
    led_in = [u for u in units if "incompatibilities" in u]
    assert led_in == [
        "There are a few other incompatibilities between this version and the older one: Sync"
        " lines are written when text is diverted, not when it is brought back; and 1 more."
    ], units
    # Nor is the second item quoted as a list of its own.
    assert not any(u.startswith("Self-referential") for u in units), units
    led = _units(
        "The release changes the parser. There are three ways to upgrade.\n\n"
        "- Rebuild.\n\nNote the first.\n\n- Reinstall.\n"
    )
    assert led[0] == "The release changes the parser.", led
    # A list of one item with nothing like it after is still quoted with its lead-in.
    alone = _units("The service has one requirement:\n\n- A writable spool directory.\n")
    assert alone == ["The service has one requirement: A writable spool directory."]


def test_code_too_long_to_quote_leaves_the_sentences_before_it_alone() -> None:
    text = (
        "This provides a way to specify constant text. The text is used literally. Here is a"
        " sample of that use from the test bench:\n\n"
        "```\n"
        'template(name="outfmt" type="list") {\n'
        '    property(name="msgnum")\n'
        '    constant(value="x")\n'
        "}\n"
        "```\n"
    )
    units = _units(text)
    # Quoted with the code's first line ("… and 3 more lines") the unit was dropped whole.
    assert units == ["This provides a way to specify constant text. The text is used literally."]


def test_fenced_text_is_code_without_its_fences() -> None:
    text = "alias\n\n```\nalias [-p] [name[=value] ...]\n```\n\nWithout arguments, print aliases."
    blocks = blocks_of(text, 0)
    assert [(b.kind, b.text) for b in blocks] == [
        ("code", "alias"),
        ("code", "alias [-p] [name[=value] ...]"),
        ("paragraph", "Without arguments, print aliases."),
    ]
    code = blocks[1]
    assert text[code.start : code.start + len(code.text)] == code.text
    assert [b.kind for b in blocks_of("```\n```\n\nText follows here.", 0)] == ["paragraph"]


def test_a_section_pointing_below_is_not_summarized_by_its_pointer() -> None:
    text = (
        "2.3 Simple parsing\n\n"
        "For simple types like OCTET STRING the simple parsing functions listed below may be"
        " used instead.\n\n"
        "• [asn1 decode simple der], page 22,\n• [asn1 encode simple der], page 16,\n"
    )
    summary = _summary("Simple parsing", text)
    assert len(summary) == 1 and NO_STATEMENT in summary[0], summary


def test_a_part_line_never_cuts_a_lead_in_from_its_items() -> None:
    # One span per sentence in number, but the second sentence is a lead-in run into its first
    # item: its span holds the lead-in alone.
    text = (
        "The hostname resolution is supported by the NSS mechanism too. The flow of this"
        " resolution is the following: The nsswitch file with a stanza like hosts: files dns"
        " dictates the resolution order in which the local files and the name servers are"
        " asked for an address. (This replaces the order stanza of the older host.conf file,"
        " which is no longer read.); and 2 more."
    )
    lead = SourcedSentence(text, ((0, 62), (63, 107), (110, 290)), "lead")
    other = SourcedSentence("Avahi provides a framework for service discovery.", ((900, 950),))
    request = SummaryRequest("k", "chapter", "Network", ["Network"], [])
    request.children = [
        ChildSummary("Hostname resolution", text, [lead, other], heading=(0, 5), passages=3),
        ChildSummary("Interface names", "Names are predictable.", heading=(990, 999)),
    ]
    sentences = ExtractiveSummarizer().summarize_one(request).sentences
    assert not any("the following:" in s.text for s in sentences), sentences
    # Cut before the lead-in: its first sentence names the part, and the chapter saying
    # little, the part's next statement follows.
    assert sentences[0].text == (
        "Hostname resolution: The hostname resolution is supported by the NSS mechanism too."
        " Avahi provides a framework for service discovery."
    ), sentences
    assert sentences[0].spans == ((0, 5), (0, 62), (900, 950)), sentences


def test_an_initial_before_a_name_ends_no_sentence() -> None:
    assert split_sentences("The style used in L. Lamport's book is shown. It is plain.") == [
        "The style used in L. Lamport's book is shown.",
        "It is plain.",
    ]
    assert split_sentences("Written by D. E. Knuth in 1984. Done.") == [
        "Written by D. E. Knuth in 1984.",
        "Done.",
    ]
    # Before a word that opens sentences, a letter ends one.
    assert split_sentences("See Appendix A. The next part follows.") == [
        "See Appendix A.",
        "The next part follows.",
    ]


def test_an_elision_line_in_a_listing_is_code_left_out() -> None:
    text = (
        "There is a package lastpage which you can use with fancyhdr as follows:\n"
        "\\usepackage{lastpage}\n"
        "...\n"
        "\\fancyfoot[C]{\\thepage\\ of \\pageref{LastPage}}\n"
    )
    units = _units(text)
    # The "..." ended the listing: the lead-in was quoted with its first line only.
    assert len(units) == 1 and units[0].endswith("\\pageref{LastPage}}`."), units
    assert "\\usepackage{lastpage} ... \\fancyfoot" in units[0]


_SLOT = (
    "You can create a replication slot like this:\n\n"
    "```\n"
    "postgres=# SELECT * FROM pg_create_physical_replication_slot('node_a_slot');\n"
    "  slot_name  | lsn\n"
    "-------------+-----\n"
    " node_a_slot |\n"
    "```\n"
)


def test_a_section_of_examples_quotes_what_each_does_by_its_first_line() -> None:
    sentences = _summary("Configuration Example", _SLOT)
    # Not "no sentence of it stands alone": the lead-in with the code's first line.
    assert sentences == [
        "You can create a replication slot like this: `postgres=# SELECT * FROM"
        " pg_create_physical_replication_slot('node_a_slot');` and 3 more lines."
    ], sentences


def test_code_quoted_by_its_first_line_never_takes_a_statements_place() -> None:
    statements = (
        "Replication slots provide an automated way to ensure that the primary does not remove"
        " WAL segments until they have been received by all standbys. In lieu of using"
        " replication slots, it is possible to prevent the removal of old WAL segments using"
        " wal_keep_size, or by storing the segments in an archive. However, these methods often"
        " result in retaining more WAL segments than required, whereas replication slots retain"
        " only the number of segments known to be needed. Similarly, hot_standby_feedback on"
        " its own provides protection against relevant rows being removed by vacuum, but"
        " provides no protection during any time period when the standby is not connected."
        " Slots are listed in the pg_replication_slots view, and each slot name may contain"
        " only lower case letters, numbers, and the underscore character."
    )
    sentences = _summary("Replication Slots", f"{statements}\n\n{_SLOT}")
    assert sentences and not any("more lines" in s for s in sentences), sentences
    # A leaf saying little does quote it after its statements.
    lead = "Replication slots keep the WAL segments that a standby still needs on the primary."
    few = _summary("Replication Slots", f"{lead}\n\n{_SLOT}")
    assert few[0] == lead and few[-1].endswith("and 3 more lines."), few


def test_an_items_lead_in_to_its_own_example_is_left_out_of_its_quote() -> None:
    text = (
        "There are two different ways to use ccache to cache a compilation:\n\n"
        "- Prefix your compilation command with ccache. This method is most convenient if you"
        " just want to try out ccache. Example:\n\n"
        "```\nccache gcc -c example.c\n```\n\n"
        "- Let ccache masquerade as the compiler. This method is best when you use ccache for"
        " all your compilations. Example:\n\n"
        "```\ncp ccache /usr/local/bin/\n```\n"
    )
    units = _units(text)
    # Not "… try out ccache. Example:; and 1 more": the item without what it announces, the
    # item after its example counted.
    assert units == [
        "There are two different ways to use ccache to cache a compilation: Prefix your"
        " compilation command with ccache. This method is most convenient if you just want to"
        " try out ccache; and 1 more."
    ], units


def test_a_drawing_is_never_run_together_into_a_quote() -> None:
    text = (
        "In the previous example, git fetch checks that the update is a fast-forward. A"
        " fast-forward looks something like this:\n\n"
        "```\n o--o--o--o <-- old head of the branch\n           \\\n"
        "            o--o--o <-- new head of the branch\n```\n"
    )
    units = _units(text)
    # Not "… like this: `o--o--o--o <-- old head of the branch \\ o--o--o <-- new head …`".
    assert units == [
        "In the previous example, git fetch checks that the update is a fast-forward."
    ], units


def test_items_under_a_label_line_are_never_quoted_as_the_nodes_statements() -> None:
    # A function's parameters under their "Parameters" label: each item alone would read as a
    # statement of the whole node, its label (what the items are) left out.
    entry = (
        "A signer securely signs bytes, then unsigns them to verify the value.\n\n"
        "Parameters\n\n"
        "- secret_key (bytes) – The secret key to sign and verify with.\n"
        "- salt (bytes) – Extra key to combine with the secret key in every context.\n"
    )
    units = _units(entry)
    assert units == ["A signer securely signs bytes, then unsigns them to verify the value."], units
    # A list with nothing above it but the node's heading is the node's own: its items stand.
    own = _units(
        "- The secret key is used to sign and verify every value.\n"
        "- The salt is combined with the secret key in every context.\n"
    )
    assert own == [
        "The secret key is used to sign and verify every value.",
        "The salt is combined with the secret key in every context.",
    ], own


def test_a_sentence_leaning_on_quoted_code_goes_on_from_it() -> None:
    """ "To use this slot, …" right after the code that creates the slot is quoted only right
    after that code's unit; after code no unit quotes, it is quoted nowhere."""
    text = (
        "Replication slots keep the primary's WAL until the standby has it.\n\n"
        "You can create a replication slot like this:\n\n```\n"
        "SELECT * FROM pg_create_physical_replication_slot('node_a_slot');\n```\n\n"
        "To configure the standby to use this slot, primary_slot_name should be set on the "
        "standby.\n"
    )
    units = units_of([(0, text)])
    slot = next(u for u in units if u.text.startswith("To configure the standby"))
    code = units[slot.order - 1]
    assert code.text.startswith("You can create a replication slot like this: `SELECT")
    assert not slot.opens and slot.after  # quoted only going on from the code's unit
    summary = " ".join(_summary("Configuration Example", text))
    assert summary.index("You can create") < summary.index("To configure the standby")
    # the code that "this slot" leans on is no unit (too many lines): neither is the sentence
    listing = "\n".join(f"SELECT {n};" for n in range(12))
    unled = text.replace("SELECT * FROM pg_create_physical_replication_slot('node_a_slot');",
                         listing).replace("You can create a replication slot like this:",
                                          "The slot is created below.")  # fmt: skip
    assert not any("To configure the standby" in u for u in _units(unled))


def test_one_of_two_named_in_the_sentence_is_no_reference_back() -> None:
    text = (
        "You can create a new buffer in your script.\n\n"
        "Two callbacks can be called (they are optional): one for input data, the other is "
        "called when the buffer is closed.\n\nSwitch to the other buffer to read it.\n"
    )
    units = _units(text)
    assert any(u.startswith("Two callbacks can be called") for u in units), units
    assert not any(u.startswith("Switch to the other buffer") for u in units)  # said before
