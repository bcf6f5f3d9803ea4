"""The parsers fuzzed at length: ``make fuzz`` (``python -m benchmarks.run fuzz_parsers``).

Every format's real seed (``tests/fuzz_support.py``) is mutated ``FUZZ_INPUTS`` times (default
10,000) by hypothesis; each input must parse with spans that slice its text, or be refused with
one of Overstory's own errors. Unlike the short run in the test suite an escape does not stop the
run: it is counted, with its exception and input size, so the figures say how many there were.
Per format: inputs, parsed, refused, escapes, the slowest input and the 99th percentile in
seconds, the largest input, and the peak memory traced while parsing one input (on every 20th
input: tracing slows parsing); in ``benchmarks/results/fuzz_parsers.json``.
"""

from __future__ import annotations

import json
import logging
import os
import time
import tracemalloc
import warnings
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings

from benchmarks.common import peak_rss_mb
from tests.fuzz_support import check_parse, mutations

FORMATS = ("markdown", "html", "pdf")
TRACE_EVERY = 20


def fuzz(fmt: str, inputs: int) -> dict[str, Any]:
    """Run ``inputs`` mutated documents of ``fmt`` through the parser; the figures."""
    outcomes: Counter[str] = Counter()
    seconds: list[float] = []
    escapes: list[dict[str, Any]] = []
    peak = {"bytes": 0, "traced_kib": 0}

    @settings(
        max_examples=inputs,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=mutations(fmt))
    def one(data: bytes) -> None:
        trace = len(seconds) % TRACE_EVERY == 0
        if trace:
            tracemalloc.start()
        started = time.perf_counter()
        try:
            outcomes[check_parse(data, fmt)] += 1
        except Exception as exc:  # counted, not raised: the run goes on
            outcomes["escaped"] += 1
            escapes.append({"error": f"{type(exc).__name__}: {exc}"[:300], "size": len(data)})
        seconds.append(time.perf_counter() - started)
        peak["bytes"] = max(peak["bytes"], len(data))
        if trace:
            peak["traced_kib"] = max(peak["traced_kib"], tracemalloc.get_traced_memory()[1] // 1024)
            tracemalloc.stop()

    started = time.perf_counter()
    one()
    ordered = sorted(seconds)
    return {
        "inputs": len(seconds),
        "parsed": outcomes["parsed"],
        "refused": outcomes["refused"],
        "escapes": outcomes["escaped"],
        "escape_examples": escapes[:10],
        "seconds_total": round(time.perf_counter() - started, 1),
        "seconds_per_input_max": round(ordered[-1], 4) if ordered else None,
        "seconds_per_input_p99": round(ordered[int(0.99 * (len(ordered) - 1))], 4)
        if ordered
        else None,
        "largest_input_bytes": peak["bytes"],
        "peak_traced_kib_per_input": peak["traced_kib"],
    }


def main() -> dict[str, Any]:
    """Every format fuzzed with ``FUZZ_INPUTS`` inputs; the figures per format."""
    inputs = int(os.environ.get("FUZZ_INPUTS") or 10_000)
    # a broken PDF makes pypdf warn (log and warnings) on every object it skips
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    results: dict[str, Any] = {"inputs_per_format": inputs, "formats": {}}
    for fmt in FORMATS:
        results["formats"][fmt] = figures = fuzz(fmt, inputs)
        print(fmt, json.dumps({k: v for k, v in figures.items() if k != "escape_examples"}))
    results["escapes"] = sum(f["escapes"] for f in results["formats"].values())
    results["peak_rss_mb"] = round(peak_rss_mb(), 1)
    return results
