"""Run the benchmarks and write each one's JSON result.

Each ``benchmarks/bench_<name>.py`` exposes ``main() -> dict`` and is listed in
:data:`BENCHMARKS`; its result lands in ``benchmarks/results/<name>.json``. Figures are reported
as ratios against a baseline measured in the same run, because the machines are shared and
noisy. ``python -m benchmarks.run NAME…`` runs only those.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

Result = dict[str, Any]


# Each module is imported only when its benchmark runs: some load torch or start servers.
def _agent_walk() -> Result:
    from benchmarks import bench_agent_walk

    return bench_agent_walk.main()


def _catalog() -> Result:
    from benchmarks import bench_catalog

    return bench_catalog.main()


def _cluster() -> Result:
    from benchmarks import bench_cluster

    return bench_cluster.main()


def _context() -> Result:
    from benchmarks import bench_context

    return bench_context.main()


def _crash() -> Result:
    from benchmarks import bench_crash

    return bench_crash.main()


def _decoding() -> Result:
    from benchmarks import bench_decoding

    return bench_decoding.main()


def _encoder() -> Result:
    from benchmarks import bench_encoder

    return bench_encoder.main()


def _http_load() -> Result:
    from benchmarks import bench_http_load

    return bench_http_load.main()


def _html_extractors() -> Result:
    from benchmarks import bench_html_extractors

    return bench_html_extractors.main()


def _ingest() -> Result:
    from benchmarks import bench_ingest

    return bench_ingest.main()


def _mcp_size() -> Result:
    from benchmarks import bench_mcp_size

    return bench_mcp_size.main()


def _mix() -> Result:
    from benchmarks import bench_mix

    return bench_mix.main()


def _fuzz_parsers() -> Result:
    from benchmarks import bench_fuzz_parsers

    return bench_fuzz_parsers.main()


def _pdf_readers() -> Result:
    from benchmarks import bench_pdf_readers

    return bench_pdf_readers.main()


def _retriever() -> Result:
    from benchmarks import bench_retriever

    return bench_retriever.main()


def _retriever_1m() -> Result:
    from benchmarks import bench_retriever_1m

    return bench_retriever_1m.main()


def _revision_cost() -> Result:
    from benchmarks import bench_revision_cost

    return bench_revision_cost.main()


def _revisions() -> Result:
    from benchmarks import bench_revisions

    return bench_revisions.main()


def _select() -> Result:
    from benchmarks import bench_select

    return bench_select.main()


def _select_coverage() -> Result:
    from benchmarks import bench_select_coverage

    return bench_select_coverage.main()


def _startup() -> Result:
    from benchmarks import bench_startup

    return bench_startup.main()


def _sentences() -> Result:
    from benchmarks import bench_sentences

    return bench_sentences.main()


def _summary_build() -> Result:
    from benchmarks import bench_summary_build

    return bench_summary_build.main()


def _summarizers() -> Result:
    from benchmarks import bench_summarizers

    return bench_summarizers.main()


def _replicas() -> Result:
    from benchmarks import bench_replicas

    return bench_replicas.main()


BENCHMARKS: dict[str, Callable[[], Result]] = {
    "agent_walk": _agent_walk,
    "catalog": _catalog,
    "cluster": _cluster,
    "context": _context,
    "crash": _crash,
    "decoding": _decoding,
    "encoder": _encoder,
    "fuzz_parsers": _fuzz_parsers,
    "html_extractors": _html_extractors,
    "http_load": _http_load,
    "ingest": _ingest,
    "mcp_size": _mcp_size,
    "mix": _mix,
    "replicas": _replicas,
    "pdf_readers": _pdf_readers,
    "retriever": _retriever,
    "retriever_1m": _retriever_1m,
    "revision_cost": _revision_cost,
    "revisions": _revisions,
    "select": _select,
    "select_coverage": _select_coverage,
    "sentences": _sentences,
    "startup": _startup,
    "summarizers": _summarizers,
    "summary_build": _summary_build,
}


def main(argv: list[str]) -> int:
    """Run the named benchmarks (all when none are named)."""
    names = argv or sorted(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s) {unknown}; known: {sorted(BENCHMARKS)}", file=sys.stderr)
        return 2
    RESULTS.mkdir(exist_ok=True)
    failed = 0
    for name in names:
        started = time.perf_counter()
        print(f"== bench {name}", flush=True)
        try:
            result = BENCHMARKS[name]()
        except Exception as exc:  # a failing benchmark must not hide the others
            failed += 1
            result = {"error": repr(exc)}
        result["_wall_seconds"] = round(time.perf_counter() - started, 2)
        out = RESULTS / f"{name}.json"
        out.write_text(json.dumps(result, indent=2) + "\n")
        print(json.dumps(result, indent=2), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
