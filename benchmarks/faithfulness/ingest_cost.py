"""Ingest cost of the lint: a full ingest of the fixtures with the lint warm-up of each kind.

`python -m benchmarks.faithfulness.ingest_cost` ingests ``fixtures/`` into fresh stores three
times, alternating the previous lexical lint and the aligned lint as the publish hook (the rest
of the stack is the service's own: ONNX encoder, extractive summarizer, Chroma), and reports the
median wall times and their ratio. Results: ``benchmarks/results/faithfulness_ingest.json``.
"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from api.service.lint_cache import LintWarmup
from benchmarks.common import FIXTURES
from indexer.embedding import make_embedder
from indexer.index import Index, open_catalog
from indexer.lint import Linter, LintFlag
from indexer.lint import lexical as old
from indexer.settings import Settings

RESULTS = Path(__file__).parent.parent / "results" / "faithfulness_ingest.json"


class _PreviousLint(Linter):
    """The previous lexical lint behind the same interface."""

    def __init__(self) -> None:
        super().__init__(None)
        self.name = "lexical-1"

    def lint(
        self, summary: str, sources: Sequence[str], labels: Sequence[str] = ()
    ) -> list[LintFlag]:
        # The lexical lint took the labels (headings, titles) among its sources.
        return [LintFlag(f.kind, f.message, f.summary_text, f.source_text)
                for f in old.lint_summary(summary, [*labels, *sources])]  # fmt: skip


def _ingest(work: Path, linter: Linter, embedder: Any) -> float:
    store = Path(tempfile.mkdtemp(dir=work))
    settings = Settings(store=store)
    catalog = open_catalog(settings)
    index = Index(
        settings, catalog=catalog, embedder=embedder, on_publish=[LintWarmup(catalog, linter)]
    )
    start = time.perf_counter()
    report = index.ingest_paths([FIXTURES])
    took = time.perf_counter() - start
    assert report.ok, report.errors
    return took


def main() -> dict[str, Any]:
    """Run the comparison and write the results."""
    work = Path(tempfile.mkdtemp(prefix="ovs-bench-lint-"))
    try:
        settings = Settings(store=work / "warm")
        embedder = make_embedder(settings)
        aligned = Linter.from_settings(settings)
        aligned.lint("Warm up the vectors.", ["Warm up."])
        _ingest(work, aligned, embedder)  # start-up costs (Chroma, imports) paid once
        times: dict[str, list[float]] = {"previous_lint": [], "lint": []}
        for _ in range(3):
            times["previous_lint"].append(_ingest(work, _PreviousLint(), embedder))
            times["lint"].append(_ingest(work, aligned, embedder))
        med = {k: statistics.median(v) for k, v in times.items()}
        result = {
            "seconds": {k: [round(x, 3) for x in v] for k, v in times.items()},
            "median_s": {k: round(v, 3) for k, v in med.items()},
            "ratio_lint_to_previous": round(med["lint"] / med["previous_lint"], 3),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    RESULTS.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
