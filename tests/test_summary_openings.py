"""A statement from the middle of a paragraph goes on from the sentences before it: the offline
summarizer quotes it only right after the statement it goes on from, as one sentence."""

from __future__ import annotations

from indexer.summarizers.base import SummaryRequest
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
