"""How a node's layout is read before any sentence is quoted: a bar inside brackets is a
grammar's alternative, not a table's cell; a header row a PDF set without bars is the table's
header; text under a command's grammar describes the command; a contents or index line's dot
leader and page number are no statement."""

from __future__ import annotations

from indexer.summarizers.base import SummaryRequest
from indexer.summarizers.blocks import blocks_of, is_table_row, line_kind
from indexer.summarizers.cues import quotable
from indexer.summarizers.extractive import ExtractiveSummarizer
from indexer.summarizers.sentences import sentence_spans
from indexer.summarizers.units import units_of


def units_of_text(text: str) -> list[str]:
    return [u.text for u in units_of([(0, text)])]


def _summary(title: str, text: str) -> list[str]:
    request = SummaryRequest("k", "section", title, [title], [text], passage_starts=[0])
    return [s.text for s in ExtractiveSummarizer().summarize_one(request).sentences]


def test_a_bar_inside_brackets_is_an_alternative_not_a_cell() -> None:
    assert not is_table_row("set terminal imagen {<fontsize>} {portrait | landscape}")
    assert not is_table_row("It is done with the \\verb|\\pagestyle{switch}| command, that")
    assert line_kind("set history {size <N>} {quiet|numbers} {full|trim} {default}") == "code"
    # Rows of a table are still rows, code in their cells or not.
    assert is_table_row("| `a|b` | the alternatives |")
    assert is_table_row("nocheck | do not check the heights of the header and footer")


def test_the_text_under_a_commands_grammar_describes_the_command() -> None:
    text = (
        "Syntax:\n"
        "set history {size <N>} {quiet|numbers} {full|trim} {default}\n"
        "When leaving gnuplot the value of history size limits the number of lines saved to the"
        " history file.\n"
        "Default settings: set history size 500 numbers trim.\n"
    )
    summary = _summary("History", text)
    assert summary[0].startswith("When leaving gnuplot the value of history size limits"), summary
    assert "Default settings: set history size 500 numbers trim." in " ".join(summary)


def test_text_after_an_example_still_waits_for_the_example() -> None:
    # An example (no grammar) keeps the rule that the sentence after it may speak of it.
    text = (
        "The history command prints previous commands.\n\n"
        "```\nhistory 5\n```\n\n"
        "This shows the last five entries.\n"
    )
    units = units_of_text(text)
    assert not any(u.startswith("This shows") for u in units), units


def test_a_header_row_set_without_bars_heads_its_table() -> None:
    text = (
        "You can supply options to the usepackage command.\n"
        "The following options are supported:\n"
        "Option Meaning\n"
        "nocheck | do not check the heights of the header and footer\n"
        "compatV3 | keep some behaviour as in version 3\n"
        "twoside | use two-sided headers and footers in one-sided documents\n"
    )
    kinds = [b.kind for b in blocks_of(text, 0)]
    assert kinds == ["paragraph", "table"], kinds
    units = units_of_text(text)
    led = [u for u in units if "The following options" in u]
    assert (
        led and "The following options are supported (Option, Meaning): nocheck, do not" in (led[0])
    ), units
    # A line of prose above a table is no header, whatever its length.
    prose = "Some words here\nnocheck | do not check\ncompatV3 | keep\n"
    assert blocks_of(prose, 0)[0].kind != "table"


def test_a_contents_lines_leader_and_page_number_are_no_statement() -> None:
    text = (
        "General: Added LPPL license clause. . . 70\n"
        "extramarks v2.0beta\n"
        "General: Adapted for the new implementation of marks to solve bug 3203.\n"
    )
    pieces = [p.text for p in sentence_spans(text)]
    assert not any(quotable(p) for p in pieces if ". . ." in p or p.startswith("70")), pieces
    assert not quotable("Corrected the macros. . . . margins: fixed the offsets.")
    # An ordinary sentence with a number is a statement.
    assert quotable("The default cache size is 5 GB.")


def test_a_table_with_lines_under_it_that_may_be_rows_says_it_goes_on() -> None:
    text = (
        "The following options are supported:\n"
        "Option Meaning\n"
        "nocheck | do not check the heights of the header and footer\n"
        "twoside | use two-sided headers and footers\n"
        "headings redefine the headings page style\n"
    )
    units = units_of_text(text)
    assert units == [
        "The following options are supported (Option, Meaning): nocheck, do not check the"
        " heights of the header and footer; twoside, use two-sided headers and footers;"
        " and further rows."
    ], units
    # A sentence after a blank line is text of its own: the table is whole.
    whole = text.replace("headings redefine the headings page style\n", "\nAll are optional.\n")
    assert not any("further rows" in u for u in units_of_text(whole)), units_of_text(whole)


def test_an_options_line_over_its_indented_description_is_the_synopsis() -> None:
    text = (
        "-v, --volume=[host-src:]container-dest[:<options>]: Bind mount a volume.\n"
        "    The comma-delimited `options` are [rw|ro], [z|Z],\n"
        "    [[r]shared|[r]slave|[r]private], and [nocopy].\n\n"
        "The container-dest must always be an absolute path such as /src/docs.\n"
    )
    summary = _summary("VOLUME (shared filesystems)", text)
    assert (
        summary[0] == "`-v, --volume=[host-src:]container-dest[:<options>]: Bind mount a volume.`."
    ), summary


def test_a_footnote_run_into_its_mark_is_no_statement() -> None:
    assert not quotable("8Based upon an idea by Wayne Chan.")
    assert quotable("3D plots are drawn with splot.")


def test_a_question_put_to_the_reader_waits_for_its_answer() -> None:
    text = (
        "Templates are a key feature of rsyslog. They are used for dynamic file names. You might"
        " ask how all of this works when no templates at all are specified. Good question. The"
        " answer is simple.\n\n"
        "Templates are specified by template() objects.\n"
    )
    summary = " ".join(_summary("Description", text))
    assert "You might ask" not in summary, summary
    assert summary.startswith("Templates are a key feature of rsyslog."), summary
    # Asking for something is no question put to the reader.
    assert quotable("You may ask for help on the mailing list.")


def test_the_writer_walking_through_an_example_is_no_statement() -> None:
    assert not quotable("Now let us print the report two-sided.")
    # "Let us be reminded of the address ranges …" says what the text holds: a statement.
    assert quotable("Let us be reminded of the IPv4 address ranges reserved for local networks.")
    text = (
        "Some document classes print two-sided by default.\n"
        "Now let us print the report two-sided. The odd pages keep the layout.\n"
    )
    assert not any("let us" in s for s in _summary("Two-sided printing", text))
