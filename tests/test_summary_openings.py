"""A statement from the middle of a paragraph goes on from the sentences before it: the offline
summarizer quotes it only right after the statement it goes on from, as one sentence."""

from __future__ import annotations

from indexer.summarizers.base import SummaryRequest
from indexer.summarizers.blocks import blocks_of
from indexer.summarizers.extractive import ExtractiveSummarizer
from indexer.summarizers.units import units_of

# The last sentence states its limit for what the one before it sets (a statement about the
# lines of a listing, never quoted); quoted alone it reads as the pump's limit in every case.
_LEFT_OUT = (
    "The pump starts when the tank is full.\n\n"
    "Lines 3-8 set the manual mode. The run time is limited to 1000 seconds."
)
_GOES_ON = (
    "The pump starts when the tank is full. The run time is limited to 1000 seconds.\n\n"
    "The valve closes when the pump stops."
)


def _summary(text: str, budget: int = 200) -> list[str]:
    request = SummaryRequest("k", "section", "Pump", ["Pump"], [text], passage_starts=[0])
    result = ExtractiveSummarizer(max_tokens=budget).summarize_one(request)
    return [s.text for s in result.sentences]


def test_a_unit_knows_whether_it_opens_its_paragraph_or_goes_on_from_the_unit_before() -> None:
    left_out = units_of([(0, _LEFT_OUT)])
    assert [(u.text, u.opens, u.after) for u in left_out] == [
        ("The pump starts when the tank is full.", True, False),
        ("The run time is limited to 1000 seconds.", False, False),
    ]
    goes_on = units_of([(0, _GOES_ON)])
    assert [(u.opens, u.after) for u in goes_on] == [(True, False), (False, True), (True, False)]


def test_a_statement_whose_sentence_before_is_left_out_is_never_quoted() -> None:
    sentences = _summary(_LEFT_OUT)
    assert sentences == ["The pump starts when the tank is full."], sentences


def test_a_statement_going_on_from_a_quoted_one_is_one_sentence_with_it() -> None:
    sentences = _summary(_GOES_ON)
    assert (
        "The pump starts when the tank is full. The run time is limited to 1000 seconds."
        in sentences
    ), sentences
    assert "The run time is limited to 1000 seconds." not in sentences
    # With room for one unit only, the one it goes on from is quoted, never it alone.
    short = _summary(_GOES_ON, budget=12)
    assert all(not s.startswith("The run time") for s in short), short


# A page of wrapped text, as read from a PDF: no blank line between its paragraphs, a page
# break (a blank line) inside the last one.
_WRAPPED = (
    "The pump moves water from the tank into the mains whenever the level sensor\n"
    "reports that the tank holds more than the reserve that the plant must keep for\n"
    "fire fighting, and it stops when the level falls back to that reserve again or\n"
    "when the operator presses the red button on the front panel of the controller.\n"
    "It is started by hand only in the manual mode.\n"
    "By default the pump runs for at most 1000 seconds at a time, after which the\n"
    "controller waits for the motor to cool down before it may start the pump again;\n"
    "the wait is set by the cooling parameter and is never shorter than five minutes\n"
    "\n"
    "in any mode. The valve closes when the pump stops and opens again when it starts\n"
    "once more, so that no water flows back from the mains into the tank at any time.\n"
)


def test_a_short_line_ending_a_sentence_ends_its_paragraph_in_wrapped_text() -> None:
    units = units_of([(0, _WRAPPED)])
    by_text = {u.text.split()[0] + " " + u.text.split()[1]: u for u in units}
    # The short line ends the first paragraph: "By default ..." opens the next one.
    assert by_text["By default"].opens, [(u.text[:20], u.opens) for u in units]
    assert by_text["The pump"].text.endswith("It is started by hand only in the manual mode.")
    # The page break parts no sentence: its rest is read with it, and the sentence after it
    # goes on in the same paragraph.
    default = by_text["By default"].text
    assert default.endswith("never shorter than five minutes in any mode."), default
    assert not by_text["The valve"].opens


def test_lines_of_a_text_that_is_not_wrapped_are_never_read_as_paragraph_ends() -> None:
    # One line per paragraph (a web page, a Markdown file): a short sentence on its own line
    # inside a block is no paragraph's end.
    text = "The pump starts when the tank is full.\nThe valve closes.\nThe run time is 1000 s."
    assert [b.kind for b in blocks_of(text, 0)] == ["paragraph"]
