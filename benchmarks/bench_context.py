"""The budgeted context against DOS RAG and top-k packing: how much of the gold evidence fits.

Corpus and questions: the real manuals of :data:`benchmarks.corpora.REALDOCS` (ingested with
the defaults) and ``benchmarks/questions/realdocs/*.jsonl``, plus, on the tuning half only,
``benchmarks/questions/realdocs-sections/*.jsonl`` (section questions written for the
context's choices, all marked ``tune``; the mix's benchmarks and training do not read them).
The context's choices (how many of the best passages bring the passage after them; how many
top-ranked summaries, child section summaries and further ranked summaries a global question
takes) are compared on the tuning half only (``tune``, the context alone); both halves then
run every system with the tuning half's choice (``tuned``; the library ships it, ``shipped``):
``tuning`` and ``heldout``.

Systems, each filling the same budget (tokens of the whole prompt text, header lines included,
counted with the default ``minilm`` tokenizer):

- ``context``: :func:`retriever.context.build_context` as shipped.
- ``dos_rag``: dense top passages (dense only, no rerank, no summaries) taken best first while
  they fit, then put back in document order (Laitenberger, Manning, Liu 2025); overlapping
  passages are merged as in the context, so that it pays for no text twice either.
- ``topk``: today's ranking (the mix of ``POST /v1/query``) packed in rank order, each result
  whole (summaries with all their sentences), as a chatbot packs the results it gets.

Evidence share of one context:

- specific question: 1 when a piece of the gold document holds the gold evidence (whitespace-
  and case-normalized), else 0;
- global question: the share of the gold node's child sections (the node itself without any)
  whose text the context holds: a quote whose character range meets the section's, or a
  summary sentence whose source span does (a summary counts for the sections its kept
  sentences come from, not for everything below its node; a sentence that only says no
  sentence of its node could be quoted holds none of its text and counts for nothing).

``misread``: a wrong reading is what the tuning half's own readings hardly show (three section
questions of 81 read as asking for the document), so the share of the budget that a global
context takes in the ranking's order (``RANKED``) is compared on the tuning half's section
questions with the reading forced to ``document`` for both the context and top-k packing,
with that share off and as shipped.

``python -m benchmarks.run context``; with ``CONTEXT_DUMP`` set to a file name, the tuned run of
the tuning half also writes each question's shares there (JSON lines: id, kind, intent, the
reading, and the share of each system at each budget), to study where the context loses.
"""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.corpora import QUESTIONS, indexed_store, realdocs_folder

BUDGETS = (500, 1000, 2000, 4000)
SYSTEMS = ("context", "dos_rag", "topk")
# Compared on the tuning half, each on the questions it acts on: FOLLOW (the best passages that
# bring the passage after them) on specific questions, SUMMARIES (the top-ranked summaries
# taken), CHILDREN (the child sections' summaries taken), LATER (the summaries ranked below the
# top ranks taken after those) and UNSURE (below which probability of a passage reading the best
# top summary joins the passages: global questions read as specific) on global ones; the knobs
# of one kind come from the same variant. The held-out half runs with the tuning half's choice.
VARIANTS = (
    {"FOLLOW": 0, "SUMMARIES": 1, "CHILDREN": 0, "UNSURE": 0.0, "LATER": 0},
    {"FOLLOW": 3, "SUMMARIES": 3, "CHILDREN": 0, "UNSURE": 0.0, "LATER": 0},
    {"FOLLOW": 1, "SUMMARIES": 3, "CHILDREN": 8, "UNSURE": 0.0, "LATER": 0},
    {"FOLLOW": 0, "SUMMARIES": 3, "CHILDREN": 8, "UNSURE": 0.8, "LATER": 0},
    {"FOLLOW": 0, "SUMMARIES": 3, "CHILDREN": 8, "UNSURE": 0.8, "LATER": 3},
    {"FOLLOW": 0, "SUMMARIES": 3, "CHILDREN": 8, "UNSURE": 0.8, "LATER": 10},
)
KNOB_KIND = {
    "FOLLOW": "specific",
    "SUMMARIES": "global",
    "CHILDREN": "global",
    "UNSURE": "global",
    "LATER": "global",
}


@dataclass(frozen=True)
class Held:
    """What a context holds of one revision: text, and the source ranges it stands for."""

    build_id: int
    text: str
    spans: tuple[tuple[int, int], ...]


SECTIONS = QUESTIONS.parent / "realdocs-sections"


def _questions(split: str) -> list[Any]:
    from retriever.evaluation import load_questions

    out = []
    paths = sorted(QUESTIONS.glob("*.jsonl")) + sorted(SECTIONS.glob("*.jsonl"))
    for path in paths:
        out += [q for q in load_questions(path) if q.split == split]
    return out


class Scorer:
    """Evidence shares of contexts for the questions of one store."""

    def __init__(self, retriever: Any) -> None:
        from retriever.evaluation import Evaluation

        self.retriever = retriever
        self.evaluation = Evaluation(retriever)

    def units(self, q: Any, snapshot: Any) -> tuple[Any, list[Any]] | None:
        """The gold node and its child sections (or itself), None when it is not indexed."""
        gold = self.evaluation.gold_node(q, snapshot)
        if gold is None:
            return None
        tree = self.evaluation._tree(gold.build_id)
        ids = [c for c in tree.children.get(gold.node_id, []) if tree.level.get(c) != "passage"]
        found = self.retriever.catalog.nodes.records_by_id(ids or [gold.node_id])
        return gold, [found[i] for i in ids or [gold.node_id] if i in found]

    def share(self, q: Any, units: list[Any], held: Sequence[Held]) -> float:
        """The evidence share (see the module)."""
        from retriever.evaluation import normalize

        build = units[0].build_id
        mine = [h for h in held if h.build_id == build]
        if q.kind == "specific":
            want = normalize(q.evidence)
            return float(any(want in normalize(h.text) for h in mine))
        reached = sum(
            any(a < u.char_end and u.char_start < b for h in mine for a, b in h.spans)
            for u in units
        )
        return reached / len(units)


def _holds(sentence: Any, text: str) -> bool:
    """True when a summary's text holds the sentence and the sentence some source text."""
    from indexer.summarizers.framing import NO_STATEMENT

    return sentence.text.strip() in text and NO_STATEMENT not in sentence.text


def _held_of_pieces(retriever: Any, pieces: Iterable[Any], snapshot: Any) -> list[Held]:
    out = []
    summaries = [p.node_ids[0] for p in pieces if p.kind == "summary"]
    sentences = retriever.catalog.nodes.sentences_of(summaries)
    for p in pieces:
        build = snapshot.documents[p.doc_id].build_id
        if p.kind == "quote":
            spans = tuple((r.char_start, r.char_end) for r in p.ranges)
        else:
            kept = [s for s in sentences.get(p.node_ids[0], []) if _holds(s, p.text)]
            spans = tuple((sp.char_start, sp.char_end) for s in kept for sp in s.spans)
        out.append(Held(build, p.text, spans))
    return out


def _packed(
    retriever: Any, nodes: Sequence[Any], snapshot: Any, budget: int, count: Callable[[str], int]
) -> list[Held]:
    """Today's results in rank order, each whole, while they fit (headers as the context's)."""
    from retriever.context_pieces import pages_label, summary_label

    texts = retriever.catalog.nodes.texts_of(nodes)
    sentences = retriever.catalog.nodes.sentences_of(n.node_id for n in nodes if not n.is_passage)
    used, out = 0, []
    for number, n in enumerate(nodes, start=1):
        doc = snapshot.by_build[n.build_id]
        text = texts.get(n.node_id, ("", None))[0].strip()
        pages = pages_label(n.pages)
        label = (
            ("quote" + (f", {pages}" if pages else "")) if n.is_passage else summary_label(n, doc)
        )
        where = " › ".join([doc.source, *n.heading_path])
        cost = count(f"[{number}] {label} | {where}\n{text}\n\n")
        if not text or used + cost > budget:
            continue
        used += cost
        if n.is_passage:
            spans: tuple[tuple[int, int], ...] = ((n.char_start, n.char_end),)
        else:
            found = [s for s in sentences.get(n.node_id, []) if _holds(s, text)]
            spans = tuple((sp.char_start, sp.char_end) for s in found for sp in s.spans)
        out.append(Held(n.build_id, text, spans))
    return out


def _contexts(
    retriever: Any, q: Any, snapshot: Any, intent: str = "auto"
) -> tuple[str, dict[str, Callable[[int], list[Held]]]]:
    """The context's reading of a question, and each system's context of it at a budget
    (rankings computed once); ``intent`` forces the reading of the context and of top-k
    packing's ranking."""
    from retriever.context import ContextRequest, Plan, counter, fill, plan
    from retriever.retriever import FLAT

    count = counter("minilm")
    asked = ContextRequest(query=q.question, documents=q.documents, intent=intent)
    ours = plan(retriever, asked)
    vector = retriever.encode(q.question)
    flat = retriever.request(q.question, k=30, kinds=["passage"], documents=q.documents)
    dense = [c.node for c in retriever.rank(flat, vector, snapshot, pipeline=FLAT).candidates]
    dos = Plan(q.question, "passage", "specific", tuple(dense), snapshot)
    today = retriever.request(q.question, k=30, documents=q.documents, intent=intent)
    ranked = retriever.rank(today, vector, snapshot, pipeline=retriever.pipeline).candidates
    mixed = [c.node for c in ranked]

    def filled(planned: Plan) -> Callable[[int], list[Held]]:
        def at(budget: int) -> list[Held]:
            request = ContextRequest(query=q.question, budget=budget)
            pieces = fill(retriever, planned, request).pieces
            return _held_of_pieces(retriever, pieces, snapshot)

        return at

    return ours.intent, {
        "context": filled(ours),
        "dos_rag": filled(dos),
        "topk": lambda budget: _packed(retriever, mixed, snapshot, budget, count),
    }


def _run(
    retriever: Any,
    questions: list[Any],
    *,
    knobs: dict[str, float],
    systems: Sequence[str],
    intent: str = "auto",
    dump: Path | None = None,
) -> dict[str, Any]:
    """Evidence shares per system, budget and question kind (and intent), with ``knobs`` set;
    ``dump``: a file to write each question's shares to (see the module)."""
    import retriever.context as context_module

    shipped = {name: getattr(context_module, name) for name in knobs}
    for name, value in knobs.items():
        setattr(context_module, name, value)
    scorer = Scorer(retriever)
    shares: dict[tuple[str, int, str], list[float]] = defaultdict(list)
    skipped = []
    rows: list[dict[str, Any]] = []
    try:
        for q in questions:
            snapshot = retriever.snapshots.take()
            found = scorer.units(q, snapshot)
            if found is None:
                skipped.append(q.id)
                continue
            gold, units = found
            groups = (q.kind, scorer.evaluation.intent_of(q, gold))
            reading, contexts = _contexts(retriever, q, snapshot, intent)
            row = {"id": q.id, "kind": q.kind, "intent": groups[1], "reading": reading}
            for system, at in contexts.items():
                if system not in systems:
                    continue
                for budget in BUDGETS:
                    share = scorer.share(q, units, at(budget))
                    row[f"{system}@{budget}"] = round(share, 4)
                    for group in groups:
                        shares[(system, budget, group)].append(share)
            rows.append(row)
    finally:
        for name, value in shipped.items():
            setattr(context_module, name, value)
    if dump is not None:
        dump.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out: dict[str, Any] = {"n": len(questions) - len(skipped), "unresolved": skipped}
    for (system, budget, group), values in sorted(shares.items()):
        cell = out.setdefault(group, {})
        cell["n"] = len(values)
        cell.setdefault(str(budget), {})[system] = round(sum(values) / len(values), 4)
    return out


def _tuned(tune: list[dict[str, Any]]) -> dict[str, float]:
    """Each knob's value from the variant with the best mean share at 1,000 and 2,000 tokens on
    the questions the knob acts on (tuning half)."""
    out = {}
    for kind in ("specific", "global"):

        def score(result: dict[str, Any], kind: str = kind) -> float:
            return sum(result[kind][str(b)]["context"] for b in (1000, 2000))

        best = max(range(len(VARIANTS)), key=lambda i: score(tune[i]))
        out.update({k: VARIANTS[best][k] for k, of in KNOB_KIND.items() if of == kind})
    return out


def _misread(retriever: Any, questions: list[Any], knobs: dict[str, float]) -> dict[str, Any]:
    """The tuning half's section questions read as asking for the document: the context with
    no share of its budget in the ranking's order and with the shipped share, and top-k."""
    import retriever.context as context_module

    sections = [q for q in questions if q.intent == "section"]
    out: dict[str, Any] = {"intent": "document", "questions": "tuning half, section"}
    for share in (0.0, context_module.RANKED):
        result = _run(
            retriever,
            sections,
            knobs={**knobs, "RANKED": share},
            systems=("context", "topk"),
            intent="document",
        )
        out[f"RANKED={share}"] = {b: result["global"][str(b)] for b in BUDGETS}
    return out


def main() -> dict[str, Any]:
    """Tune on the tuning half, then score both halves with the tuned knobs, every system."""
    import retriever.context as context_module
    from indexer.index import Index
    from indexer.settings import Settings
    from retriever.retriever import Retriever

    store: Path = indexed_store("realdocs", realdocs_folder())
    retriever = Retriever(Index(Settings(store=store)))
    started = time.perf_counter()
    questions = _questions("tune")
    tune = [_run(retriever, questions, knobs=v, systems=("context",)) for v in VARIANTS]
    knobs = _tuned(tune)
    dump = os.environ.get("CONTEXT_DUMP")
    tuning = _run(
        retriever, questions, knobs=knobs, systems=SYSTEMS, dump=Path(dump) if dump else None
    )
    heldout = _run(retriever, _questions("heldout"), knobs=knobs, systems=SYSTEMS)
    misread = _misread(retriever, questions, knobs)
    return {
        "budgets": list(BUDGETS),
        "tokenizer": "minilm",
        "systems": list(SYSTEMS),
        "tuned": knobs,
        "shipped": {k: getattr(context_module, k) for k in knobs},
        "heldout": heldout,
        "tuning": tuning,
        "tune": [{"knobs": v, **r} for v, r in zip(VARIANTS, tune, strict=True)],
        "misread": misread,
        "seconds": round(time.perf_counter() - started, 1),
    }
