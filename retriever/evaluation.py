"""The evaluation harness: per intent, hit@1/3/5, MRR@10 and coverage@5 of three systems in one
run — Overstory (the mix), Overstory with passages only, and a flat baseline (passages only,
dense only) — plus how well the intent was read.

Questions (JSON lines)::

    {"id", "question", "kind": "specific"|"global",
     "intent"?: "passage"|"section"|"document", "documents"?: [doc_id], "split"?: "tune"|…,
     "gold": {"source", "heading_path", "evidence"}}

``documents`` asks the question within those documents (a chatbot that knows which manual the
user has open). ``intent`` defaults to ``passage`` for a specific question, and for a global one
to ``document`` when its gold is the document's root, else ``section``.

A specific question is hit at rank r when the result at r is a passage of the gold document
containing ``evidence`` (whitespace- and case-normalized). A global question is hit at rank r when
the result at r is the gold node: the first heading or document node (not a cluster) of the gold
document whose heading path equals the gold's. The coverage of a question at k is the fraction
of the gold node's child sections (the gold node itself when it has none) that the top k results
reach: a summary covers what lies below it, a passage the section it sits in.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import JsonValue

from indexer.errors import BadInputError, InvalidRequestError, NotFoundError
from retriever.candidates import Candidate
from retriever.retriever import FLAT, Pipeline, Retriever
from retriever.snapshot import NodeRecord, Snapshot

KINDS = ("specific", "global")
INTENTS = ("passage", "section", "document")
SYSTEMS = ("overstory", "passages", "flat")
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
    intent: str | None = None
    documents: list[str] | None = None
    split: str | None = None


def load_questions(path: Path) -> list[Question]:
    """Read and check a questions file.

    Raises:
        BadInputError: The file is missing, or a line is not a well-formed question.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInputError(f"cannot read questions from {path}: {exc}") from exc
    out = [_question(path, n, line) for n, line in enumerate(lines, start=1) if line.strip()]
    if not out:
        raise InvalidRequestError(f"{path}: no questions")
    return out


def _question(path: Path, number: int, line: str) -> Question:
    try:
        raw = json.loads(line)
        gold = raw["gold"]
        docs = raw.get("documents")
        q = Question(
            id=str(raw["id"]),
            question=str(raw["question"]),
            kind=str(raw["kind"]),
            source=str(gold["source"]),
            heading_path=tuple(str(h) for h in gold["heading_path"]),
            evidence=str(gold.get("evidence") or ""),
            intent=str(raw["intent"]) if raw.get("intent") else None,
            documents=[str(d) for d in docs] if docs else None,
            split=str(raw["split"]) if raw.get("split") else None,
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise InvalidRequestError(
            f"{path}:{number}: not a question line ({exc.__class__.__name__}: {exc})"
        ) from exc
    if q.kind not in KINDS:
        raise InvalidRequestError(f"{path}:{number}: kind must be 'specific' or 'global'")
    if q.intent is not None and q.intent not in INTENTS:
        raise InvalidRequestError(f"{path}:{number}: intent must be one of {', '.join(INTENTS)}")
    if q.kind == "specific" and not q.evidence:
        raise InvalidRequestError(f"{path}:{number}: a specific question needs evidence")
    return q


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


@dataclass(frozen=True)
class GroupScores:
    """One system's scores on one question group (a kind or an intent)."""

    n: int
    hit_at_1: float
    hit_at_3: float
    hit_at_5: float
    mrr_at_10: float
    coverage_at_5: float

    def to_json(self) -> dict[str, JsonValue]:
        """``{"n", "hit@1", "hit@3", "hit@5", "mrr@10", "coverage@5"}``."""
        return {
            "n": self.n,
            "hit@1": self.hit_at_1,
            "hit@3": self.hit_at_3,
            "hit@5": self.hit_at_5,
            "mrr@10": self.mrr_at_10,
            "coverage@5": self.coverage_at_5,
        }


@dataclass(frozen=True)
class IntentScores:
    """How well the query's intent was read: accuracy, and counts by (labelled, read)."""

    accuracy: float
    confusion: dict[str, dict[str, int]]


@dataclass(frozen=True)
class EvaluationReport:
    """Scores by system (``overstory``, ``passages``, ``flat``) and group, and the intent's."""

    systems: dict[str, dict[str, GroupScores]]
    intent: IntentScores

    def to_json(self) -> dict[str, JsonValue]:
        """The JSON of ``overstory eval --json``: each system's groups, then ``intent``."""
        out: dict[str, JsonValue] = {
            system: {group: scores.to_json() for group, scores in groups.items()}
            for system, groups in self.systems.items()
        }
        confusion: dict[str, JsonValue] = {
            labelled: {read: n for read, n in row.items()}
            for labelled, row in self.intent.confusion.items()
        }
        out["intent"] = {"accuracy": self.intent.accuracy, "confusion": confusion}
        return out


@dataclass
class Evaluation:
    """Runs the questions against a retriever and scores every system."""

    retriever: Retriever
    pipeline: Pipeline | None = None
    _trees: dict[int, _Tree] = field(default_factory=dict)
    unresolved: list[str] = field(default_factory=list)

    def run(self, questions: Sequence[Question]) -> EvaluationReport:
        """Metrics per system and question group, and the intent's accuracy (its JSON is
        ``overstory eval --json``).

        Raises:
            NotFoundError: Nothing is indexed: every score would be zero.
        """
        if not self.retriever.catalog.served_document_count():
            raise NotFoundError(
                f"nothing is indexed in {self.retriever.index.settings.store}: ingest the "
                "documents the questions are about first (overstory ingest PATH)"
            )
        snapshot = self.retriever.snapshots.take()
        outcomes: dict[str, dict[str, list[Outcome]]] = {s: defaultdict(list) for s in SYSTEMS}
        read: Counter[tuple[str, str]] = Counter()
        self.unresolved = []
        vectors = self.retriever.embedder.embed([q.question for q in questions])
        for q, vector in zip(questions, vectors, strict=True):
            gold = self.gold_node(q, snapshot)
            if gold is None:
                self.unresolved.append(q.id)
            intent = self.intent_of(q, gold)
            for system, pipeline, kinds in self._systems():
                request = self.retriever.request(
                    q.question, k=DEPTH, kinds=kinds, documents=q.documents
                )
                ranking = self.retriever.rank(request, vector, snapshot, pipeline=pipeline)
                outcome = self.score(q, gold, ranking.candidates[:DEPTH])
                for group in (q.kind, intent):
                    outcomes[system][group].append(outcome)
                if system == "overstory" and ranking.intent is not None:
                    read[(intent, ranking.intent.label)] += 1
        return EvaluationReport(
            systems={s: _summary(outcomes[s]) for s in SYSTEMS}, intent=_intent_summary(read)
        )

    def _systems(self) -> list[tuple[str, Pipeline, list[str] | None]]:
        base = self.pipeline or self.retriever.pipeline
        return [
            ("overstory", base, None),
            ("passages", base, ["passage"]),
            ("flat", FLAT, ["passage"]),
        ]

    def intent_of(self, q: Question, gold: NodeRecord | None) -> str:
        """The question's intent: as labelled, else from its kind and gold."""
        if q.intent is not None:
            return q.intent
        if q.kind == "specific":
            return "passage"
        return "document" if gold is not None and gold.parent_id is None else "section"

    def gold_node(self, q: Question, snapshot: Snapshot) -> NodeRecord | None:
        """The gold document's node at the gold heading path (None when not indexed)."""
        doc = snapshot.documents.get(q.source) or next(
            (d for d in snapshot.documents.values() if d.source == q.source), None
        )
        if doc is None:
            return None
        node_id = self._tree(doc.build_id).by_path.get(q.heading_path)
        if node_id is None:
            return None
        return self.retriever.catalog.nodes.records_by_id([node_id]).get(node_id)

    def gold_ids(self, q: Question, snapshot: Snapshot) -> set[str]:
        """The node ids that answer a question: passages with the evidence, or the gold node."""
        gold = self.gold_node(q, snapshot)
        if gold is None:
            return set()
        if q.kind == "global":
            return {gold.node_id}
        want = normalize(q.evidence)
        nodes = self.retriever.catalog.nodes.records_of_build(gold.build_id)
        passages = [n for n in nodes if n.is_passage]
        texts = self.retriever.catalog.nodes.texts_of(passages)
        return {n.node_id for n in passages if want in normalize(texts[n.node_id][0])}

    def _tree(self, build_id: int) -> _Tree:
        if build_id not in self._trees:
            rows = self.retriever.catalog.nodes.records_of_build(build_id)
            children: dict[str, list[str]] = {}
            by_path: dict[tuple[str, ...], str] = {}
            for r in rows:
                if r.parent_id is not None:
                    children.setdefault(r.parent_id, []).append(r.node_id)
                if r.level not in ("passage", "cluster"):
                    by_path.setdefault(r.heading_path, r.node_id)
            self._trees[build_id] = _Tree(
                parent={r.node_id: r.parent_id for r in rows},
                level={r.node_id: r.level for r in rows},
                children=children,
                by_path=by_path,
            )
        return self._trees[build_id]

    def score(self, q: Question, gold: NodeRecord | None, ranked: Sequence[Candidate]) -> Outcome:
        """Rank of the first hit (None: no hit in the top 10) and coverage@5."""
        if gold is None:
            return Outcome(rank=None, coverage=0.0)
        rank = None
        if q.kind == "specific":
            mine = [
                c.node for c in ranked if c.node.build_id == gold.build_id and c.node.is_passage
            ]
            texts = self.retriever.catalog.nodes.texts_of(mine)
            want = normalize(q.evidence)
            for r, c in enumerate(ranked, start=1):
                text = texts.get(c.node_id, ("", None))[0]
                if c.node_id in texts and want in normalize(text):
                    rank = r
                    break
        else:
            rank = next((r for r, c in enumerate(ranked, 1) if c.node_id == gold.node_id), None)
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


def _summary(outcomes: dict[str, list[Outcome]]) -> dict[str, GroupScores]:
    out: dict[str, GroupScores] = {}
    for group in (*KINDS, *INTENTS):
        items = outcomes.get(group, [])
        if not items:
            continue
        ranks = [o.rank for o in items]
        out[group] = GroupScores(
            n=len(items),
            hit_at_1=_mean(r is not None and r <= 1 for r in ranks),
            hit_at_3=_mean(r is not None and r <= 3 for r in ranks),
            hit_at_5=_mean(r is not None and r <= 5 for r in ranks),
            mrr_at_10=_mean((1.0 / r) if r is not None and r <= DEPTH else 0.0 for r in ranks),
            coverage_at_5=_mean(o.coverage for o in items),
        )
    return out


def _intent_summary(read: Counter[tuple[str, str]]) -> IntentScores:
    total = sum(read.values())
    right = sum(n for (want, got), n in read.items() if want == got)
    return IntentScores(
        accuracy=round(right / total, 4) if total else 0.0,
        confusion={w: {g: read[(w, g)] for g in INTENTS} for w in INTENTS},
    )


def _mean(values: Iterable[float | bool]) -> float:
    vals = [float(v) for v in values]
    return round(sum(vals) / len(vals), 4) if vals else 0.0
