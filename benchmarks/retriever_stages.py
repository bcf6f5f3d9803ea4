"""Where a query's time goes: the retriever's stages timed per query, the slowest queries too.

:class:`StageTimer` wraps the stages of one retriever instance (its encoder call, the dense
search, BM25, the node-record lookups, the rerank and the mix) and the cycle collector's pauses,
and attributes each to the query running on the calling thread, in wall time and in the calling
thread's CPU time (which other processes do not inflate: the gap between the two is time spent
waiting for a core, the GIL or another query's encoder batch). What is left of a query is
``answer`` (outside the encoder and the ranking: the route, the snapshot, the hits with their
texts and audit state) and ``other`` (inside the ranking: fusion, the summaries above the
passages, the intent). A collection counts in ``gc`` and in the stage it interrupted.

:func:`breakdown` reports each stage's p50 and p99 alone, and the mean of each stage over the
slowest queries (the total's p99 and above, and p95 and above: a sample big enough to read), so
that the tail is explained by the stages that make it, not by the median query.
"""

from __future__ import annotations

import functools
import gc
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

STAGES = ("encode", "dense", "bm25", "records", "rerank_mix", "other", "answer", "gc")
_TIMED = ("dense", "bm25", "records", "rerank_mix")


class _Clock:
    """Stage times of the query running on one thread: wall and thread CPU seconds."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = dict.fromkeys((*STAGES, "rank"), 0.0)
        self.cpu: dict[str, float] = dict.fromkeys((*STAGES, "rank"), 0.0)
        self.gc_started = 0.0


class StageTimer:
    """Per-query stage times of one retriever (attach once; thread-safe)."""

    def __init__(self, retriever: Any) -> None:
        self._local = threading.local()
        self._lock = threading.Lock()
        self.queries: list[dict[str, float]] = []
        r = retriever
        self._wrap(r, "encode", "encode")
        self._wrap(r.dense, "search", "dense")
        self._wrap(r.lexical, "search_kinds", "bm25")
        self._wrap(r.records, "by_vector", "records")
        self._wrap(r.records, "by_id", "records")
        self._wrap(r.reranker, "rerank", "rerank_mix")
        self._wrap(r.mix_model, "rank", "rerank_mix")
        self._wrap(r, "rank", "rank")
        self._query = r.query
        gc.callbacks.append(self._gc)

    def close(self) -> None:
        """Stop timing the collector (the wrapped stages stay, costing two clock reads each)."""
        if self._gc in gc.callbacks:
            gc.callbacks.remove(self._gc)

    def query(self, request: Any) -> Any:
        """Run one query, recording its stages."""
        clock = self._local.clock = _Clock()
        started, started_cpu = time.perf_counter(), time.thread_time()
        try:
            return self._query(request)
        finally:
            total, total_cpu = time.perf_counter() - started, time.thread_time() - started_cpu
            self._local.clock = None
            row: dict[str, float] = {}
            for suffix, times, whole in (("", clock.wall, total), ("_cpu", clock.cpu, total_cpu)):
                times["other"] = max(times["rank"] - sum(times[s] for s in _TIMED), 0.0)
                times["answer"] = max(whole - times["encode"] - times["rank"], 0.0)
                times["total"] = whole
                row.update({f"{k}{suffix}": v * 1000 for k, v in times.items() if k != "rank"})
            del row["gc_cpu"]  # a collection's CPU is already in the stage it interrupted
            with self._lock:
                self.queries.append(row)

    def _wrap(self, owner: Any, name: str, stage: str) -> None:
        inner: Callable[..., Any] = getattr(owner, name)

        @functools.wraps(inner)
        def timed(*args: Any, **kwargs: Any) -> Any:
            clock = getattr(self._local, "clock", None)
            started, started_cpu = time.perf_counter(), time.thread_time()
            try:
                return inner(*args, **kwargs)
            finally:
                if clock is not None:
                    clock.wall[stage] += time.perf_counter() - started
                    clock.cpu[stage] += time.thread_time() - started_cpu

        object.__setattr__(owner, name, timed)  # the mix model is a frozen dataclass

    def _gc(self, phase: str, info: dict[str, Any]) -> None:
        clock = getattr(self._local, "clock", None)
        if clock is None:
            return
        if phase == "start":
            clock.gc_started = time.perf_counter()
        else:
            clock.wall["gc"] += time.perf_counter() - clock.gc_started


class FloorTimer:
    """The floor (one query encoded alone, one raw vector-store query), timed in its two parts."""

    def __init__(self, encode: Callable[[str], Any], search: Callable[[Any], Any]) -> None:
        self._encode = encode
        self._search = search
        self._lock = threading.Lock()
        self.queries: list[dict[str, float]] = []

    def __call__(self, query: str) -> None:
        started, started_cpu = time.perf_counter(), time.thread_time()
        vector = self._encode(query)
        encoded, encoded_cpu = time.perf_counter(), time.thread_time()
        self._search(vector)
        done, done_cpu = time.perf_counter(), time.thread_time()
        row = {
            "encode": (encoded - started) * 1000,
            "encode_cpu": (encoded_cpu - started_cpu) * 1000,
            "vector_search": (done - encoded) * 1000,
            "vector_search_cpu": (done_cpu - encoded_cpu) * 1000,
            "total": (done - started) * 1000,
            "total_cpu": (done_cpu - started_cpu) * 1000,
        }
        with self._lock:
            self.queries.append(row)


def breakdown(queries: list[dict[str, float]]) -> dict[str, Any]:
    """Each stage's p50 and p99 (and CPU p50 where recorded), and each stage's mean over the
    queries at the total's p99 and p95 and above (ms)."""
    if not queries:
        return {}
    stages = [k for k in queries[0] if not k.endswith("_cpu")]
    totals = np.asarray([q["total"] for q in queries])
    out: dict[str, Any] = {"n": len(queries)}
    for stage in stages:
        values = np.asarray([q[stage] for q in queries])
        out[stage] = {
            "p50_ms": round(float(np.percentile(values, 50)), 2),
            "p99_ms": round(float(np.percentile(values, 99)), 2),
        }
        if f"{stage}_cpu" in queries[0]:
            cpu = np.asarray([q[f"{stage}_cpu"] for q in queries])
            out[stage]["cpu_p50_ms"] = round(float(np.percentile(cpu, 50)), 2)
    for pct in (99, 95):
        cut = float(np.percentile(totals, pct))
        slow = [q for q in queries if q["total"] >= cut]
        out[f"mean_of_slowest_{100 - pct}pct"] = {
            "queries": len(slow),
            **{f"{s}_ms": round(float(np.mean([q[s] for q in slow])), 2) for s in stages},
        }
    return out
