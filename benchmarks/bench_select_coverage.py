"""Query-free selection coverage: the two coverage tables of ``tests/test_select.py``.

80 labelled passages in 8 topics embedded with the real model (every method against a TextRank
baseline, over 10 seeds), and the documents each method covers on the fixture manuals. The
measurement lives in the tests, which assert on it; this runs them in a subprocess with
``BENCH_SELECT_COVERAGE_FILE`` naming a temporary file and returns what they wrote, so
``make bench`` writes ``benchmarks/results/select_coverage.json`` and ``make test`` nothing.
``python -m benchmarks.run select_coverage``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT

TESTS = (
    "tests/test_select.py::test_coverage_and_redundancy_per_method_against_textrank",
    "tests/test_select.py::test_document_coverage_on_the_fixture_manuals",
)


def main() -> dict[str, Any]:
    """Run the coverage tests and return their tables (``topics8``, ``fixture_manuals``)."""
    with tempfile.TemporaryDirectory(prefix="overstory-bench-coverage-") as tmp:
        out = Path(tmp) / "select_coverage.json"
        env = {**os.environ, "BENCH_SELECT_COVERAGE_FILE": str(out)}
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS]
        subprocess.run(cmd, cwd=ROOT, env=env, check=True)
        result: dict[str, Any] = json.loads(out.read_text())
    return result


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
