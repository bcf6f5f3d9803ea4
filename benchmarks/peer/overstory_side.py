"""Overstory in the peer benchmark: its real ingest of each revision folder (one store, the
summary cache keyed by hashes, so a revision recomputes only the changed path) and its real
query path (``Retriever.query``, the mix of summaries and passages, reranked), reported in the
raw form the peers report (:mod:`benchmarks.peer.peers`)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from benchmarks.peer.corpus import Revision

TOP_K = 10


def _result(row: dict[str, Any]) -> dict[str, Any]:
    """One result of ``POST /v1/query`` as spans: a passage its own, a summary its node's."""
    spans = {row["doc_id"]: [[row["char_start"], row["char_end"]]]}
    return {"spans": spans, "source_text": row["kind"] == "passage", "text": row["text"]}


def _ingest(index: Any, folder: Path) -> dict[str, Any]:
    started = time.perf_counter()
    report = index.ingest_paths([folder])
    seconds = time.perf_counter() - started
    if report.errors:
        raise RuntimeError(f"ingesting {folder} failed: {report.errors}")
    changed = sum(1 for d in report.documents if d.status != "unchanged")
    return {
        "seconds": seconds,
        "llm_calls": report.summarizer_calls,
        "embedded": report.embedded,
        "changed_units": changed,
    }


def run(
    revisions: list[Revision],
    questions: list[dict[str, Any]],
    probes: tuple[dict[str, Any], ...],
    store: Path,
) -> dict[str, Any]:
    """Build from the first revision, ask every question, then ingest each later revision."""
    from indexer.index import Index
    from indexer.settings import Settings
    from retriever.retriever import Retriever

    shutil.rmtree(store, ignore_errors=True)
    index = Index(Settings(store=store))
    first, *later = revisions
    out: dict[str, Any] = {"build": _ingest(index, first.folder)}

    def search(text: str) -> list[dict[str, Any]]:
        retriever = Retriever(index)
        answer = retriever.query(retriever.request(text, k=TOP_K))
        return [_result(r) for r in answer.to_json()["results"]]

    retriever = Retriever(index)
    rankings, seconds = {}, []
    for q in questions[:5]:  # warm caches, models and connections
        retriever.query(retriever.request(q["question"], k=TOP_K))
    for q in questions:
        request = retriever.request(q["question"], k=TOP_K)
        started = time.perf_counter()
        found = retriever.query(request)
        seconds.append(time.perf_counter() - started)
        rankings[q["id"]] = [_result(r) for r in found.to_json()["results"]]
    out.update({"rankings": rankings, "query_seconds": seconds, "reindex": {}})
    for rev in later:
        row = _ingest(index, rev.folder)
        row["probes"] = {p["id"]: search(p["question"]) for p in probes}
        out["reindex"][rev.name] = {"incremental": row}
    index.close()
    return out
