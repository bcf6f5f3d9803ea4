"""Extractive summaries: whole cross-references, no markup, transcripts by content."""

from __future__ import annotations

from pathlib import Path

from indexer.summarizers.base import SummaryRequest
from indexer.summarizers.dialogue import is_content, is_dialogue, without_speakers
from indexer.summarizers.extractive import ExtractiveSummarizer
from indexer.summarizers.sentences import split_sentences, strip_markup

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_a_sentence_never_ends_inside_a_parenthesis_or_after_an_abbreviation() -> None:
    text = (
        "The fill style applies to boxes. See set colorsequence (p. 207) for the colours. "
        "Use a value, e.g. 0.5 for half density. Fig. 3 shows (a) solid. and (b) empty fill.\n\n"
        "- first item\n- second item"
    )
    assert split_sentences(text) == [
        "The fill style applies to boxes.",
        "See set colorsequence (p. 207) for the colours.",
        "Use a value, e.g. 0.5 for half density.",
        "Fig. 3 shows (a) solid. and (b) empty fill.",
        "first item",
        "second item",
    ]


def test_an_unbalanced_parenthesis_does_not_swallow_the_paragraph() -> None:
    sentence = "This opens a parenthesis (and never closes it. " * 20
    assert len(split_sentences(sentence + "Last sentence here.")) > 1


def test_markup_is_stripped() -> None:
    assert strip_markup("Run **`make test`** and see [the guide](docs/guide.md) <b>now</b>.") == (
        "Run make test and see the guide now."
    )


def test_a_transcript_is_summarized_by_its_content_sentences() -> None:
    call = (FIXTURES / "field-service-call.txt").read_text(encoding="utf-8")
    turns = call.split("\n\n")[:16]
    assert is_dialogue(turns) and not is_dialogue(["Note: one label.", "Plain text here."])
    assert "Technician:" not in without_speakers(turns[0])
    assert not is_content("All right. When you say worse, what are we talking about?")
    assert not is_content("Yes, that's me, good morning.")
    assert is_content("Forty millilitres in ten minutes is far too much for a mechanical seal.")
    request = SummaryRequest("k", "cluster", None, [], turns, [])
    summary = ExtractiveSummarizer().summarize_one(request).text
    assert summary and "Technician:" not in summary and "Customer:" not in summary
    assert "?" not in summary
    assert not any(s.startswith(("Yes", "Okay", "All right")) for s in split_sentences(summary))


def test_a_list_number_is_no_sentence_and_a_quote_may_end_one() -> None:
    text = (
        "1. Stop the server. Then copy the files.\n"
        "2. Start it again.\n\n"
        "Do not just write “This is not what I expect.” Say what you expected."
    )
    assert split_sentences(text) == [
        "Stop the server.",
        "Then copy the files.",
        "Start it again.",
        "Do not just write “This is not what I expect.”",
        "Say what you expected.",
    ]
