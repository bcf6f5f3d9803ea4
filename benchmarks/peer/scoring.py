"""One scorer for every system of the peer benchmark, on what any retriever can report: for each
result, which character spans of which document's extracted text it covers, and whether its
text is source text (a passage, or a merged chunk of passages) or a summary.

- A specific question is hit at rank r when the result at r is source text of the gold document
  containing the evidence (whitespace- and case-normalized), as in :mod:`retriever.evaluation`.
- A global question is hit at rank r when the result at r stands for the gold section: it lies
  in the gold document and the spans it covers overlap the gold section's span by more than
  half of their union (so Overstory's summary of that section, a RAPTOR cluster mostly made of
  its passages, or a merged chunk of about its size all count; a summary of the whole document
  or of a parent twice the section's size does not).
- Coverage@5: the fraction of the gold section's child sections (the section itself when it has
  none) that the top 5 results reach; a result reaches a unit when its spans overlap the unit's
  span by at least ``min(REACH_CHARS, unit length, result length)`` characters: a summary
  reaches what lies below it, a passage the section it sits in, a chunk the sections it holds a
  real part of (not a boundary sliver).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

KINDS = ("specific", "global")
DEPTH = 10
REACH_CHARS = 200
GLOBAL_IOU = 0.5
_WS = re.compile(r"\s+")

Spans = dict[str, list[list[int]]]  # doc_id -> [[start, end), ...]


def normalize(text: str) -> str:
    """Whitespace-collapsed, case-folded, NFKC text for evidence matching."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


@dataclass(frozen=True)
class Section:
    """A heading section of the exported corpus: its span and its child sections' spans."""

    doc_id: str
    span: tuple[int, int]
    units: tuple[tuple[int, int], ...]


def sections(corpus: dict[str, Any]) -> dict[tuple[str, tuple[str, ...]], Section]:
    """Every heading section of an exported corpus by ``(doc_id, heading_path)``."""
    out = {}
    for doc in corpus["documents"]:
        by_path = {tuple(s["heading_path"]): s for s in doc["sections"]}
        for path, s in by_path.items():
            kids = [by_path[tuple(c)] for c in s["children"] if tuple(c) in by_path]
            units = tuple((k["char_start"], k["char_end"]) for k in kids)
            out[(doc["doc_id"], path)] = Section(
                doc["doc_id"], (s["char_start"], s["char_end"]), units
            )
    return out


def _merged(spans: Iterable[Sequence[int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted((int(s[0]), int(s[1])) for s in spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _overlap(spans: list[tuple[int, int]], lo: int, hi: int) -> int:
    return sum(max(0, min(b, hi) - max(a, lo)) for a, b in spans)


def _length(spans: list[tuple[int, int]]) -> int:
    return sum(b - a for a, b in spans)


def is_hit(question: dict[str, Any], gold: Section, result: dict[str, Any]) -> bool:
    """Whether one result answers the question (see the module's rules)."""
    mine = _merged(result["spans"].get(gold.doc_id, []))
    if question["kind"] == "specific":
        want = normalize(question["gold"]["evidence"])
        return bool(mine) and result["source_text"] and want in normalize(result["text"])
    if not mine:
        return False
    lo, hi = gold.span
    inter = _overlap(mine, lo, hi)
    union = _length(mine) + (hi - lo) - inter
    return union > 0 and inter / union > GLOBAL_IOU


def coverage(gold: Section, results: Sequence[dict[str, Any]]) -> float:
    """Fraction of the gold section's units the results reach."""
    units = gold.units or (gold.span,)
    reached = set()
    for result in results:
        mine = _merged(result["spans"].get(gold.doc_id, []))
        for unit in units:
            need = min(REACH_CHARS, unit[1] - unit[0], _length(mine))
            if mine and _overlap(mine, *unit) >= max(need, 1):
                reached.add(unit)
    return len(reached) / len(units)


def score(
    question: dict[str, Any], gold: Section, ranked: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """Rank of the first hit in the top 10 (None: none) and coverage@5 of one question."""
    rank = next((r for r, res in enumerate(ranked[:DEPTH], 1) if is_hit(question, gold, res)), None)
    return {"rank": rank, "coverage@5": coverage(gold, ranked[:5])}


def summarize(outcomes: Sequence[dict[str, Any]]) -> dict[str, float | int]:
    """hit@1/5, MRR@10 and mean coverage@5 over some questions' outcomes."""
    ranks = [o["rank"] for o in outcomes]
    n = len(outcomes)

    def mean(values: Iterable[float]) -> float:
        return round(sum(values) / n, 4) if n else 0.0

    return {
        "n": n,
        "hit@1": mean(float(r is not None and r <= 1) for r in ranks),
        "hit@5": mean(float(r is not None and r <= 5) for r in ranks),
        "mrr@10": mean((1.0 / r) if r is not None else 0.0 for r in ranks),
        "coverage@5": mean(o["coverage@5"] for o in outcomes),
    }


def evaluate(
    questions: Sequence[dict[str, Any]],
    golds: dict[str, Section],
    rankings: dict[str, list[dict[str, Any]]],
) -> dict[str, Any]:
    """Figures per split (``all`` and each question's ``split``) and kind."""
    per: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for q in questions:
        outcome = score(q, golds[q["id"]], rankings[q["id"]])
        for split in {"all", q.get("split") or "all"}:
            per.setdefault(split, {}).setdefault(q["kind"], []).append(outcome)
    return {
        split: {kind: summarize(kinds.get(kind, [])) for kind in KINDS}
        for split, kinds in per.items()
    }


def latency(seconds: Sequence[float]) -> dict[str, float]:
    """p50 and p99 of query wall times, in milliseconds."""
    arr = np.asarray(seconds) * 1000
    return {
        "p50_ms": round(float(np.percentile(arr, 50)), 2),
        "p99_ms": round(float(np.percentile(arr, 99)), 2),
    }
