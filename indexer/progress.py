"""Progress events of long work (ingest), for a CLI bar or an HTTP job record."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class ProgressEvent:
    """``done`` of ``total`` units of ``stage`` for one document."""

    doc_id: str
    stage: str  # parse | embed | summarize | store
    done: int
    total: int
    summarizer_calls: int = 0
    cache_hits: int = 0


ProgressFn = Callable[[ProgressEvent], None]


def no_progress(_: ProgressEvent) -> None:
    """A progress sink that ignores everything."""
