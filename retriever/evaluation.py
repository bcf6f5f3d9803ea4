"""The evaluation harness: hit@1, hit@5, MRR@10 and coverage@5 per question kind, for Overstory
and for a flat baseline (passages only, dense only) in the same run.

Questions (JSON lines)::

    {"id", "question", "kind": "specific"|"global",
     "gold": {"source", "heading_path", "evidence"}}

A specific question is hit at rank r when the result at r is a passage of the gold document
containing ``evidence`` (whitespace- and case-normalized). A global question is hit at rank r when
the result at r is a summary of the gold document whose heading path equals the gold's. The
coverage of a question at k is the fraction of the gold node's child sections (the gold node
itself when it has none) that the top k results reach: a summary covers what lies below it, a
passage the section it sits in, so a passage or summary anywhere inside a child section reaches
it, and a summary of the gold node or one of its ancestors reaches every child.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from indexer.errors import BadInputError, InvalidRequestError
from retriever.candidates import Candidate
from retriever.request import QueryRequest
from retriever.retriever import FLAT, Pipeline, Retriever
from retriever.snapshot import NodeRecord, Snapshot, take_snapshot

KINDS = ("specific", "global")
DEPTH = 10
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Question:
    """One evaluation question with its gold answer."""

    id: str
    question: str
    kind: str
    source: str
    heading_path: tuple[str, ...]
    evidence: str


def load_questions(path: Path) -> list[Question]:
    """Read and check a questions file.

    Raises:
        BadInputError: The file is missing, or a line is not a well-formed question.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInputError(f"cannot read questions from {path}: {exc}") from exc
    out = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            gold = raw["gold"]
            q = Question(
                id=str(raw["id"]),
                question=str(raw["question"]),
                kind=str(raw["kind"]),
                source=str(gold["source"]),
                heading_path=tuple(str(h) for h in gold["heading_path"]),
                evidence=str(gold.get("evidence") or ""),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidRequestError(
                f"{path}:{number}: not a question line ({exc.__class__.__name__}: {exc})"
            ) from exc
        if q.kind not in KINDS:
            raise InvalidRequestError(f"{path}:{number}: kind must be 'specific' or 'global'")
        if q.kind == "specific" and not q.evidence:
            raise InvalidRequestError(f"{path}:{number}: a specific question needs evidence")
        out.append(q)
    if not out:
        raise InvalidRequestError(f"{path}: no questions")
    return out


def normalize(text: str) -> str:
    """Whitespace-collapsed, case-folded, NFKC text for evidence matching."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


@dataclass
class _Tree:
    """Parent links of one build, to tell which nodes lie below which."""

    parent: dict[str, str | None]
    level: dict[str, str]
    children: dict[str, list[str]]
    by_path: dict[tuple[str, ...], str]

    def ancestors_or_self(self, node_id: str) -> list[str]:
        out = []
        cur: str | None = node_id
        while cur is not None:
            out.append(cur)
            cur = self.parent.get(cur)
        return out


@dataclass
class Outcome:
    """One question's result for one system."""

    rank: int | None
    coverage: float


@dataclass
class Evaluation:
    """Runs the questions against a retriever and scores both systems."""

    retriever: Retriever
    pipeline: Pipeline | None = None
    _trees: dict[int, _Tree] = field(default_factory=dict)

    def run(self, questions: Sequence[Question]) -> dict[str, Any]:
        """Metrics per system and kind (the JSON of ``overstory eval --json``)."""
        snapshot = take_snapshot(self.retriever.catalog)
        overstory: dict[str, list[Outcome]] = {k: [] for k in KINDS}
        flat: dict[str, list[Outcome]] = {k: [] for k in KINDS}
        self.unresolved: list[str] = []
        base = self.pipeline or self.retriever.pipeline
        vectors = self.retriever.embedder.embed([q.question for q in questions])
        for q, vector in zip(questions, vectors, strict=True):
            gold = self._gold(q, snapshot)
            if gold is None:
                self.unresolved.append(q.id)
            for system, pipeline, kinds in (
                (overstory, base, None),
                (flat, FLAT, ["passage"]),
            ):
                request = QueryRequest.create(q.question, k=DEPTH, kinds=kinds)
                ranked = self.retriever.rank(request, vector, snapshot, pipeline=pipeline)
                system[q.kind].append(self.score(q, gold, ranked[:DEPTH]))
        return {"overstory": _summary(overstory), "flat": _summary(flat)}

    def _gold(self, q: Question, snapshot: Snapshot) -> NodeRecord | None:
        doc = snapshot.documents.get(q.source) or next(
            (d for d in snapshot.documents.values() if d.source == q.source), None
        )
        if doc is None:
            return None
        tree = self._tree(doc.build_id)
        node_id = tree.by_path.get(q.heading_path)
        if node_id is None:
            return None
        row = self.retriever.catalog.node(node_id)
        return NodeRecord.from_row(row) if row is not None else None

    def _tree(self, build_id: int) -> _Tree:
        if build_id not in self._trees:
            rows = self.retriever.catalog.nodes_of_build(build_id)
            children: dict[str, list[str]] = {}
            by_path: dict[tuple[str, ...], str] = {}
            for r in rows:
                if r["parent_id"] is not None:
                    children.setdefault(r["parent_id"], []).append(r["node_id"])
                if r["level"] != "passage":
                    by_path.setdefault(tuple(json.loads(r["heading_path"])), r["node_id"])
            self._trees[build_id] = _Tree(
                parent={r["node_id"]: r["parent_id"] for r in rows},
                level={r["node_id"]: r["level"] for r in rows},
                children=children,
                by_path=by_path,
            )
        return self._trees[build_id]

    def score(self, q: Question, gold: NodeRecord | None, ranked: Sequence[Candidate]) -> Outcome:
        """Rank of the first hit (None: no hit in the top 10) and coverage@5."""
        if gold is None:
            return Outcome(rank=None, coverage=0.0)
        same = [c.node.build_id == gold.build_id for c in ranked]
        rank = None
        if q.kind == "specific":
            texts = self.retriever.catalog.nodes.texts_of(
                [c.node for c, ok in zip(ranked, same, strict=True) if ok and c.node.is_passage],
            )
            want = normalize(q.evidence)
            for r, c in enumerate(ranked, start=1):
                text = texts.get(c.node_id, ("", None))[0]
                if c.node.is_passage and c.node_id in texts and want in normalize(text):
                    rank = r
                    break
        else:
            for r, (c, ok) in enumerate(zip(ranked, same, strict=True), start=1):
                if ok and not c.node.is_passage and c.node.heading_path == gold.heading_path:
                    rank = r
                    break
        return Outcome(rank=rank, coverage=self.coverage(gold, ranked[:5]))

    def coverage(self, gold: NodeRecord, ranked: Iterable[Candidate]) -> float:
        """Fraction of the gold node's child sections reached by the results."""
        tree = self._tree(gold.build_id)
        units = [
            c for c in tree.children.get(gold.node_id, []) if tree.level.get(c) != "passage"
        ] or [gold.node_id]
        reached: set[str] = set()
        for cand in ranked:
            if cand.node.build_id != gold.build_id:
                continue
            above = set(tree.ancestors_or_self(cand.node_id))
            for unit in units:
                inside = unit in above
                over = not cand.node.is_passage and cand.node_id in tree.ancestors_or_self(unit)
                if inside or over:
                    reached.add(unit)
        return len(reached) / len(units)


def _summary(outcomes: dict[str, list[Outcome]]) -> dict[str, dict[str, float | int]]:
    out: dict[str, dict[str, float | int]] = {}
    for kind, items in outcomes.items():
        n = len(items)
        ranks = [o.rank for o in items]
        out[kind] = {
            "n": n,
            "hit@1": _mean(r is not None and r <= 1 for r in ranks),
            "hit@5": _mean(r is not None and r <= 5 for r in ranks),
            "mrr@10": _mean((1.0 / r) if r is not None and r <= DEPTH else 0.0 for r in ranks),
            "coverage@5": _mean(o.coverage for o in items),
        }
    return out


def _mean(values: Iterable[float | bool]) -> float:
    vals = [float(v) for v in values]
    return round(sum(vals) / len(vals), 4) if vals else 0.0
