"""Where an ingest's time goes: wall seconds per stage, for the ingest report.

Stages: ``open`` (the store, the encoder check), ``read`` (files read and hashed, an HTML
manual's pages ordered), ``parse``, ``chunk`` (the heading tree and its passages), ``embed``
(the encoder's model loads on its first batch, so its start-up lands here), ``cluster``,
``summarize``, ``store`` (the build written and published, stale vectors dropped), ``prune``
(retention) and ``publish`` (what the edge does after a publish: the lexical index, the lint).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class StageTimes:
    """Wall seconds per stage, summed over the documents of one ingest."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        """Add the time the block takes to ``stage``."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.add(stage, time.perf_counter() - started)

    def add(self, stage: str, seconds: float) -> None:
        """Add ``seconds`` to ``stage``."""
        self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds

    def to_json(self, total: float | None = None) -> dict[str, float]:
        """Seconds per stage (rounded); with ``total``, ``other`` is what no stage accounts for."""
        out = {stage: round(s, 3) for stage, s in self.seconds.items()}
        if total is not None:
            out["other"] = round(max(0.0, total - sum(self.seconds.values())), 3)
        return out
