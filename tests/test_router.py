"""The change router on its question set and on the retriever evaluation's questions.

``fixtures/change_questions.jsonl`` holds 70 questions about change and 20 that use change
words without asking about change, split once into a tuning and a held-out half before the
cues were tuned; the figures docs/how-to/revisions.md states are the held-out ones, recomputed here.
"""

from __future__ import annotations

import json
from typing import Any

from retriever.changes.route import route
from tests.helpers import ROOT

QUESTIONS = [
    json.loads(line)
    for line in (ROOT / "fixtures" / "change_questions.jsonl").read_text().splitlines()
]
EVALUATION = [
    json.loads(line)["question"]
    for line in (ROOT / "fixtures" / "questions.jsonl").read_text().splitlines()
]
PAGE = (ROOT / "docs" / "how-to" / "revisions.md").read_text(encoding="utf-8")


def _share(rows: list[dict[str, Any]], want: str) -> tuple[int, int]:
    hits = sum(1 for r in rows if route(r["question"]).route == want)
    return hits, len(rows)


def _rows(split: str, kind: str) -> list[dict[str, Any]]:
    return [r for r in QUESTIONS if r["split"] == split and r["route"] == kind]


def test_the_question_set_is_large_varied_and_split_once() -> None:
    change = [r for r in QUESTIONS if r["route"] == "comparison"]
    assert len(change) >= 60
    assert len({r["question"] for r in QUESTIONS}) == len(QUESTIONS)
    assert {r["split"] for r in QUESTIONS} == {"tuning", "heldout"}
    assert len(_rows("heldout", "comparison")) >= 30


def test_held_out_change_questions_go_to_the_comparison() -> None:
    hits, n = _share(_rows("heldout", "comparison"), "comparison")
    assert hits / n >= 0.90, (hits, n)
    assert f"held-out change questions routed to the comparison: {hits} of {n}" in PAGE


def test_held_out_look_alikes_stay_with_retrieval() -> None:
    hits, n = _share(_rows("heldout", "retrieval"), "retrieval")
    assert hits == n
    assert f"held-out look-alikes kept for retrieval: {hits} of {n}" in PAGE


def test_the_retriever_evaluation_questions_stay_with_retrieval() -> None:
    wrong = [q for q in EVALUATION if route(q).route == "comparison"]
    assert len(wrong) / len(EVALUATION) <= 0.02, wrong
    assert (
        f"retriever evaluation questions routed to the comparison: {len(wrong)} of "
        f"{len(EVALUATION)}" in PAGE
    )


def test_the_benchmark_questions_stay_with_retrieval() -> None:
    questions = [
        json.loads(line)["question"]
        for path in sorted((ROOT / "benchmarks" / "questions").rglob("*.jsonl"))
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    wrong = [q for q in questions if route(q).route == "comparison"]
    assert len(questions) >= 600 and len(wrong) / len(questions) <= 0.02, wrong
    assert f"the {len(questions)} questions of `benchmarks/questions/`" in PAGE
    assert f"routed to the comparison: {len(wrong)} (" in PAGE


def test_a_forced_route_wins_and_says_so() -> None:
    forced = route("How do I change the seal?", forced="comparison")
    assert forced.route == "comparison" and forced.source == "request"
    assert route("What changed in chapter 5?").rules == ("what_changed",)
