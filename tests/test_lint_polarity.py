"""A setting or outcome said the other way round is a negation fault, without a negation word."""

from __future__ import annotations

from indexer.lint import Linter, LintFlag

SOURCE = [
    "The query cache is off by default. Connections from unknown hosts are rejected. "
    "Core dumps are disabled on Linux unless CoreDumpDirectory is configured."
]


def _flipped(summary: str) -> list[LintFlag]:
    return [f for f in Linter(None).lint(summary, SOURCE) if f.rule == "negation.flipped"]


def test_a_switch_said_the_other_way_round_is_flagged_with_both_words_quoted() -> None:
    flags = _flipped("The query cache is on by default.")
    assert [(f.kind, f.summary_quote, f.source_quote) for f in flags] == [("negation", "on", "off")]
    assert flags[0].source_text == "The query cache is off by default."
    assert [f.source_quote for f in _flipped("Connections from unknown hosts are accepted.")] == [
        "rejected"
    ]


def test_the_same_state_in_other_words_is_not_flagged() -> None:
    assert _flipped("The query cache is not on by default.") == []  # "not on" says "off"
    assert _flipped("Core dumps are not enabled on Linux unless a directory is set.") == []
    assert _flipped("The query cache is off unless configured otherwise.") == []


def test_prepositions_questions_and_both_states_are_not_flips() -> None:
    assert _flipped("The query cache on default installs is small.") == []  # a preposition
    assert _flipped("A setting decides whether the query cache is on by default.") == []
    assert _flipped("Connections from hosts are accepted or rejected by the host list.") == []
