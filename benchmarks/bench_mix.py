"""The mix of summaries and passages on questions over real manuals, and what the intent step costs.

Corpus: 23 documents from Debian documentation packages (:data:`benchmarks.corpora.REALDOCS`:
the Bash, HAProxy, BIND 9, Docker, Debian Reference, libtasn1, bzip2, libjpeg and dpkg manuals
and specifications; HTML, Markdown, PDF and plain text without headings), installed at benchmark
time, ingested with the defaults (MiniLM, extractive summaries), and the fixtures.

Questions: ``benchmarks/questions/realdocs/*.jsonl`` (366, a third each asking for a passage, a
section or chapter, the whole document; split once into a tuning and a held-out half before
anything was tuned; the models in ``retriever/models/`` were fitted on the tuning half only) and
``fixtures/questions.jsonl``. For each: Overstory (the mix), Overstory with passages only, and the
flat baseline (passages, dense only), per intent, in one run.

Passages first (:data:`retriever.mix.PASSAGES_FIRST`): below which probability of a global
reading a question's first five places go to its five best passages, and below which to its
four best, is chosen on the tuning half: among the pairs whose specific hit@1 and hit@5 are at
least passages-only's and whose global hit@5 is at least the mix's without the step, the best
global hit@5, then the best mean reciprocal rank (both kinds), then the smallest thresholds
(the least change to the fitted mix); the held-out half is scored with that choice and with
the shipped thresholds, which the targets report. ``top5_summary_share`` is the share of the
first five places that summaries take, per intent.

Latency: queries of both halves, p50 and p99 of the whole query path with the intent step (the
intent estimate, the summaries above the best passages, the mix) and without it (the same
candidates, both kinds merged by reranker score), interleaved in one run.

``python -m benchmarks.run mix``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import ROOT
from benchmarks.corpora import QUESTIONS, fixtures_folder, indexed_store, realdocs_folder

ROUNDS = 3
SURE_GRID = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


def _evaluate(store: Path, questions: list[Any]) -> dict[str, Any]:
    from indexer.index import Index
    from indexer.settings import Settings
    from retriever.evaluation import Evaluation
    from retriever.retriever import Retriever

    evaluation = Evaluation(Retriever(Index(Settings(store=store))))
    result: dict[str, Any] = evaluation.run(questions).to_json()
    result["unresolved"] = evaluation.unresolved
    return result


def _realdocs_questions(split: str) -> list[Any]:
    from retriever.evaluation import load_questions

    out = []
    for path in sorted(QUESTIONS.glob("*.jsonl")):
        out += [q for q in load_questions(path) if q.split == split]
    return out


def _rankings(store: Path, questions: list[Any]) -> list[dict[str, Any]]:
    """Per question: its intent group, the probability of a global reading, the mix's ranking
    with no passages-first step, and the passages-only ranking."""
    import retriever.mix as mix_module
    from indexer.index import Index
    from indexer.settings import Settings
    from retriever.evaluation import DEPTH, Evaluation
    from retriever.retriever import Retriever

    retriever = Retriever(Index(Settings(store=store)))
    evaluation = Evaluation(retriever)
    snapshot = retriever.snapshots.take()
    vectors = retriever.embedder.embed([q.question for q in questions])
    shipped = mix_module.PASSAGES_FIRST
    mix_module.PASSAGES_FIRST = ()
    out = []
    try:
        for q, vector in zip(questions, vectors, strict=True):
            gold = evaluation.gold_node(q, snapshot)
            if gold is None:
                continue
            both = retriever.request(q.question, k=DEPTH, documents=q.documents)
            mixed = retriever.rank(both, vector, snapshot, pipeline=retriever.pipeline)
            only = retriever.request(q.question, k=DEPTH, kinds=["passage"], documents=q.documents)
            passages = retriever.rank(only, vector, snapshot, pipeline=retriever.pipeline)
            assert mixed.intent is not None
            out.append(
                {
                    "question": q,
                    "gold": gold,
                    "intent": evaluation.intent_of(q, gold),
                    "p_global": 1.0 - mixed.intent.scores["passage"],
                    "mixed": mixed.candidates,
                    "passages": passages.candidates,
                }
            )
    finally:
        mix_module.PASSAGES_FIRST = shipped
    return out


def _guarded(row: dict[str, Any], rule: tuple[tuple[float, int], ...]) -> list[Any]:
    """The mix's ranking with the passages-first step under ``rule`` (as PASSAGES_FIRST)."""
    from retriever.evaluation import DEPTH

    places = next((n for p, n in rule if row["p_global"] < p), 0)
    head = row["passages"][:places]
    ids = {c.node_id for c in head}
    return [*head, *(c for c in row["mixed"] if c.node_id not in ids)][:DEPTH]


def _guard_figures(
    evaluation: Any, rows: list[dict[str, Any]], rule: tuple[tuple[float, int], ...] | None
) -> dict[str, Any]:
    """Hit@1, hit@5 and MRR per kind under one rule (None: passages only), and the summaries'
    share of the first five places per intent."""
    ranks: dict[str, list[int | None]] = {"specific": [], "global": []}
    share: dict[str, list[float]] = {"passage": [], "section": [], "document": []}
    for row in rows:
        ranked = row["passages"][:10] if rule is None else _guarded(row, rule)
        q = row["question"]
        ranks[q.kind].append(evaluation.score(q, row["gold"], ranked).rank)
        share[row["intent"]].append(sum(not c.node.is_passage for c in ranked[:5]) / 5)
    out: dict[str, Any] = {"passages_first": None if rule is None else [list(r) for r in rule]}
    for kind, found in ranks.items():
        for k in (1, 5):
            out[f"{kind}_hit@{k}"] = round(hit_at(found, k), 4)
        out[f"{kind}_mrr"] = round(float(np.mean([1 / r if r else 0.0 for r in found])), 4)
    out["top5_summary_share"] = {i: round(float(np.mean(v)), 4) for i, v in share.items() if v}
    return out


def hit_at(found: list[int | None], k: int) -> float:
    """Share of ranks at most ``k``."""
    return float(np.mean([r is not None and r <= k for r in found]))


def _rules() -> list[tuple[tuple[float, int], ...]]:
    """No step, and every pair of thresholds of :data:`SURE_GRID` (five passages first below
    the first, four below the second)."""
    out: list[tuple[tuple[float, int], ...]] = [()]
    for five in SURE_GRID:
        for four in SURE_GRID:
            if four > five:
                out.append(((five, 5), (four, 4)))
            elif four == five and five > 0:
                out.append(((five, 5),))
    return out


def _passages_first(
    store: Path, tune: list[Any], heldout: list[Any], shipped: tuple[tuple[float, int], ...]
) -> dict[str, Any]:
    """The passages-first thresholds chosen on the tuning half, scored on the held-out half
    beside the thresholds shipped (which a new choice replaces only when the held-out half
    confirms it)."""
    from indexer.index import Index
    from indexer.settings import Settings
    from retriever.evaluation import Evaluation
    from retriever.retriever import Retriever

    evaluation = Evaluation(Retriever(Index(Settings(store=store))))
    halves = {"tune": _rankings(store, tune), "heldout": _rankings(store, heldout)}
    rules = _rules()
    figures = {
        half: [_guard_figures(evaluation, rows, rule) for rule in rules]
        for half, rows in halves.items()
    }
    only = {half: _guard_figures(evaluation, rows, None) for half, rows in halves.items()}
    base, plain = only["tune"], figures["tune"][0]
    keeping = [
        i
        for i, t in enumerate(figures["tune"])
        if t["specific_hit@1"] >= base["specific_hit@1"]
        and t["specific_hit@5"] >= base["specific_hit@5"]
        and t["global_hit@5"] >= plain["global_hit@5"]
    ]

    def merit(i: int) -> tuple[float, ...]:
        t = figures["tune"][i]
        thresholds = [p for p, _ in rules[i]]
        return (t["global_hit@5"], t["specific_mrr"] + t["global_mrr"], -sum(thresholds))

    best = max(keeping, key=merit) if keeping else 0
    return {
        "chosen_on_tune": [list(r) for r in rules[best]],
        "tune": {"passages_only": only["tune"], "without": plain, "chosen": figures["tune"][best]},
        "heldout": {
            "passages_only": only["heldout"],
            "without": figures["heldout"][0],
            "chosen": figures["heldout"][best],
            "shipped": _guard_figures(evaluation, halves["heldout"], shipped),
        },
        "trials_tune": figures["tune"],
    }


def _latency(store: Path, questions: list[Any]) -> dict[str, Any]:
    """p50/p99 of ``Retriever.query`` with and without the intent step, interleaved."""
    from dataclasses import replace

    from indexer.index import Index
    from indexer.settings import Settings
    from retriever.retriever import Retriever

    retriever = Retriever(Index(Settings(store=store)))
    plain = replace(retriever.pipeline, mix=False)
    requests = [retriever.request(q.question, k=5, documents=q.documents) for q in questions]
    for request in requests[:10]:  # warm caches, models and connections
        retriever.query(request)
        retriever.query(request, pipeline=plain)
    times: dict[str, list[float]] = {"with_intent": [], "without_intent": []}
    for _ in range(ROUNDS):
        for request in requests:
            for name, pipeline in (("with_intent", None), ("without_intent", plain)):
                started = time.perf_counter()
                retriever.query(request, pipeline=pipeline)
                times[name].append(time.perf_counter() - started)
    out: dict[str, Any] = {"queries": len(times["with_intent"])}
    for name, values in times.items():
        arr = np.asarray(values) * 1000
        out[name] = {"p50_ms": round(float(np.percentile(arr, 50)), 2)}
        out[name]["p99_ms"] = round(float(np.percentile(arr, 99)), 2)
    out["p50_ratio"] = round(out["with_intent"]["p50_ms"] / out["without_intent"]["p50_ms"], 3)
    out["target_p50_ratio"] = 1.1
    return out


def main() -> dict[str, Any]:
    """Evaluate both halves and the fixtures; time the intent step."""
    from retriever.evaluation import load_questions
    from retriever.mix import PASSAGES_FIRST

    real_store = indexed_store("realdocs", realdocs_folder())
    fixture_store = indexed_store("fixtures", fixtures_folder())
    heldout = _realdocs_questions("heldout")
    tune = _realdocs_questions("tune")
    result: dict[str, Any] = {
        "heldout": _evaluate(real_store, heldout),
        "tune": _evaluate(real_store, tune),
        "fixtures": _evaluate(fixture_store, load_questions(ROOT / "fixtures/questions.jsonl")),
        "latency": _latency(real_store, heldout + tune),
        "passages_first": _passages_first(real_store, tune, heldout, PASSAGES_FIRST),
    }
    result["passages_first"]["shipped"] = [list(r) for r in PASSAGES_FIRST]
    ours = result["heldout"]["overstory"]
    result["targets"] = {
        "heldout_global_hit@5": ours["global"]["hit@5"],
        "heldout_document_hit@3": ours["document"]["hit@3"],
        "heldout_specific_hit@1": ours["specific"]["hit@1"],
        "heldout_specific_hit@1_passages_only": result["heldout"]["passages"]["specific"]["hit@1"],
        "heldout_specific_hit@1_flat": result["heldout"]["flat"]["specific"]["hit@1"],
        "heldout_specific_hit@5": ours["specific"]["hit@5"],
        "heldout_specific_hit@5_passages_only": result["heldout"]["passages"]["specific"]["hit@5"],
        "heldout_top5_summary_share": result["passages_first"]["heldout"]["shipped"][
            "top5_summary_share"
        ],
        "p50_ratio": result["latency"]["p50_ratio"],
    }
    return result
