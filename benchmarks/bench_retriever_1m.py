"""Query latency at 1M passages, against the floor measured in the same run (issue 36).

The corpus is ``bench_retriever``'s, scaled to 1,000,000 passages (the fixture manuals replicated
with renumbered text; every passage and summary vector is its real source vector plus Gaussian
noise, so the vectors are synthetic around real topics, about 1.5M of them in Chroma). It is
built once and cached in the temp folder (Chroma's HNSW graph saved to disk every 250,000
vectors while it is written instead of every 1,000); the BM25 index is built by the first warm-up
and cached beside it.

Measured on one warmed retriever (reranker ``none``, encodes coalesced), the floor (one query
encode + one raw Chroma query of ``dense_candidates`` vectors) paired question by question:
single client, then 8 concurrent clients, each with the stage breakdown of
``benchmarks.retriever_stages`` (at p50, at p99, and the mean over the slowest queries) and the
load average before and after. Fewer kinds of measurement than the 150k benchmark: no rerankers,
no BM25 rebuild, no encoder-thread sweep (they do not change with the corpus's size).

Not part of ``make test``: ``python -m benchmarks.run retriever_1m`` (``make bench`` runs it too).
"""

from __future__ import annotations

import os
from typing import Any

from benchmarks.bench_retriever import _concurrent, _paired, corpus, questions
from benchmarks.common import peak_rss_mb, timed
from benchmarks.retriever_stages import FloorTimer, StageTimer, breakdown

PASSAGES = 1_000_000
CLIENTS = 8
SINGLE_QUERIES = 150
CONCURRENT_QUERIES = 400


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def main() -> dict[str, Any]:
    """Build or reuse the 1M corpus, then measure."""
    from indexer.embedding.minilm import MiniLMEmbedder
    from indexer.index import Index
    from indexer.settings import Settings
    from retriever.rerankers.fusion import FusionOrder
    from retriever.retriever import Retriever

    (store, info), corpus_seconds = timed(lambda: corpus(PASSAGES))
    info["vectors_are"] = (
        "synthetic: each the real MiniLM vector of its source node in the fixture manuals plus "
        "Gaussian noise (cosine about 0.9 to it), renormalized"
    )
    if not info["reused"]:
        info["build_seconds"] = round(corpus_seconds, 1)
    result: dict[str, Any] = {"corpus": info, "cpus": os.cpu_count()}
    settings = Settings(store=store)
    index = Index(settings)
    embedder = MiniLMEmbedder(threads=settings.torch_threads)
    retriever = Retriever(index, embedder=embedder, reranker=FusionOrder())
    load = {"warm_up_before": _load()}
    _, warm = timed(retriever.warm)
    result["warm_up_seconds"] = round(warm, 1)
    stages = StageTimer(retriever)
    floor = FloorTimer(
        lambda q: embedder.embed([q])[0],
        lambda v: index.vectors.query(v, retriever.pipeline.dense_candidates),
    )
    qs = questions(SINGLE_QUERIES + CONCURRENT_QUERIES)
    single, many = qs[:SINGLE_QUERIES], qs[SINGLE_QUERIES:]

    def query(q: str) -> Any:
        return stages.query(retriever.request(q, k=5))

    load["single_client_before"] = _load()
    result["single_client"] = _paired(
        {"floor_encode_plus_chroma": floor, "query_no_reranker": query}, single
    )
    load["single_client_after"] = _load()
    result["stages"] = {
        "single_client": {
            "floor": breakdown(floor.queries[-len(single) :]),
            "query_no_reranker": breakdown(stages.queries[-len(single) :]),
        }
    }
    floor.queries.clear()
    stages.queries.clear()
    load["concurrent_before"] = _load()
    result["concurrent"] = _concurrent(
        {"floor_encode_plus_chroma": floor, "query_no_reranker": query}, many, CLIENTS
    )
    load["concurrent_after"] = _load()
    result["stages"]["concurrent"] = {
        "floor": breakdown(floor.queries),
        "query_no_reranker": breakdown(stages.queries),
    }
    stages.close()
    coalescer = retriever.encoder
    if coalescer is not None and coalescer.batches:
        result["concurrent"]["query_no_reranker"]["mean_encode_batch"] = round(
            coalescer.items / coalescer.batches, 2
        )
    s = result["single_client"]
    c = result["concurrent"]
    result["figures"] = {
        "p50_no_reranker_over_floor": _ratio(s, "p50_ms"),
        "p50_cpu_no_reranker_over_floor": _ratio(s, "cpu_p50_ms"),
        "p99_no_reranker_ms": s["query_no_reranker"]["p99_ms"],
        "floor_p99_ms": s["floor_encode_plus_chroma"]["p99_ms"],
        "concurrent_p50_over_floor": _ratio(c, "p50_ms"),
        "concurrent_p99_ms": c["query_no_reranker"]["p99_ms"],
        "concurrent_floor_p99_ms": c["floor_encode_plus_chroma"]["p99_ms"],
    }
    result["load_average"] = load
    result["peak_rss_mb"] = round(peak_rss_mb(), 1)
    return result


def _ratio(part: dict[str, Any], key: str) -> float:
    return round(part["query_no_reranker"][key] / part["floor_encode_plus_chroma"][key], 2)
