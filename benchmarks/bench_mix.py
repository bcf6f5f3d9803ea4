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


def _evaluate(store: Path, questions: list[Any]) -> dict[str, Any]:
    from indexer.index import Index
    from indexer.settings import Settings
    from retriever.evaluation import Evaluation
    from retriever.retriever import Retriever

    evaluation = Evaluation(Retriever(Index(Settings(store=store))))
    result = evaluation.run(questions)
    result["unresolved"] = evaluation.unresolved
    return result


def _realdocs_questions(split: str) -> list[Any]:
    from retriever.evaluation import load_questions

    out = []
    for path in sorted(QUESTIONS.glob("*.jsonl")):
        out += [q for q in load_questions(path) if q.split == split]
    return out


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

    real_store = indexed_store("realdocs", realdocs_folder())
    fixture_store = indexed_store("fixtures", fixtures_folder())
    heldout = _realdocs_questions("heldout")
    tune = _realdocs_questions("tune")
    result: dict[str, Any] = {
        "heldout": _evaluate(real_store, heldout),
        "tune": _evaluate(real_store, tune),
        "fixtures": _evaluate(fixture_store, load_questions(ROOT / "fixtures/questions.jsonl")),
        "latency": _latency(real_store, heldout + tune),
    }
    ours = result["heldout"]["overstory"]
    result["targets"] = {
        "heldout_global_hit@5": ours["global"]["hit@5"],
        "heldout_document_hit@3": ours["document"]["hit@3"],
        "heldout_specific_hit@1": ours["specific"]["hit@1"],
        "heldout_specific_hit@1_passages_only": result["heldout"]["passages"]["specific"]["hit@1"],
        "heldout_specific_hit@1_flat": result["heldout"]["flat"]["specific"]["hit@1"],
        "p50_ratio": result["latency"]["p50_ratio"],
    }
    return result
