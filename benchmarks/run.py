"""Run every benchmark module (``benchmarks/bench_*.py``) and write its JSON result.

Each module exposes ``main() -> dict``; the result lands in ``benchmarks/results/<name>.json``.
Figures are reported as ratios against a baseline measured in the same run, because the
machines are shared and noisy. ``python -m benchmarks.run NAME…`` runs only those.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def main(argv: list[str]) -> int:
    """Run the named benchmarks (all when none are named)."""
    names = argv or sorted(p.stem.removeprefix("bench_") for p in HERE.glob("bench_*.py"))
    RESULTS.mkdir(exist_ok=True)
    failed = 0
    for name in names:
        started = time.perf_counter()
        print(f"== bench {name}", flush=True)
        try:
            result = importlib.import_module(f"benchmarks.bench_{name}").main()
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
