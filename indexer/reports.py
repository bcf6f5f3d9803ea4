"""What an ingest reports: the JSON contract of ``overstory ingest --json`` and of HTTP jobs."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class DocumentReport:
    """One document's outcome."""

    doc_id: str
    source: str
    revision: str
    status: str  # new | changed | unchanged
    nodes: int
    passages: int
    summaries: int
    depth: int
    summarizer_calls: int = 0
    cache_hits: int = 0
    embedded: int = 0
    summary_failures: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class IngestReport:
    """A whole ``ingest`` call."""

    documents: list[DocumentReport] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)  # doc_id, source, reason
    removed: list[str] = field(default_factory=list)  # doc_ids deleted by --sync
    summarizer_calls: int = 0
    cache_hits: int = 0
    embedded: int = 0
    seconds: float = 0.0
    pruned: list[dict[str, Any]] = field(default_factory=list)  # revisions retention dropped
    stages: dict[str, float] = field(default_factory=dict)  # seconds per stage (indexer.timings)

    def add(self, doc: DocumentReport) -> None:
        """Count one document in the totals."""
        self.documents.append(doc)
        self.summarizer_calls += doc.summarizer_calls
        self.cache_hits += doc.cache_hits
        self.embedded += doc.embedded

    @property
    def ok(self) -> bool:
        """True when every file was ingested and every summary was written."""
        return not self.errors and not any(d.summary_failures for d in self.documents)

    def to_json(self) -> dict[str, Any]:
        """The contract's JSON document."""
        docs = []
        for d in self.documents:
            row = asdict(d)
            for k in ("summarizer_calls", "cache_hits", "embedded"):
                row.pop(k)
            docs.append(row)
        return {
            "documents": docs,
            "errors": self.errors,
            "skipped": self.skipped,
            "removed": self.removed,
            "summarizer_calls": self.summarizer_calls,
            "cache_hits": self.cache_hits,
            "embedded": self.embedded,
            "seconds": round(self.seconds, 3),
            **({"stages": self.stages} if self.stages else {}),
            **({"pruned": self.pruned} if self.pruned else {}),
        }
