"""Value objects the store hands out and takes in (frozen, keyword-only)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from indexer.store.backends import Row


@dataclass(frozen=True, kw_only=True)
class StoredSummary:
    """A cached summary and what wrote it."""

    key: str
    text: str
    backend: str
    model: str
    prompt_version: str
    sentences_json: str | None = None  # anchored (``indexer.sourced.dumps_anchored``)

    @property
    def writer(self) -> str:
        """``backend/model@prompt_version``, as query results name it."""
        return f"{self.backend}/{self.model}@{self.prompt_version}"


@dataclass(frozen=True, kw_only=True)
class NewSummary:
    """A computed summary to store in the cache, with what it cost."""

    key: str
    text: str
    backend: str
    model: str
    prompt_version: str
    input_tokens: int = 0
    output_tokens: int = 0
    parts: int = 1
    sentences_json: str | None = None  # anchored (``indexer.sourced.dumps_anchored``)


@dataclass(frozen=True, kw_only=True)
class ServedDocument:
    """A document's served revision."""

    doc_id: str
    source: str
    build_id: int
    revision: str
    summarizer: str
    root_node: str | None = None


@dataclass(frozen=True, kw_only=True)
class BuildInfo:
    """One build (revision) of a document."""

    build_id: int
    doc_id: str
    revision: str
    status: str
    embedder: str
    completed_at: float | None
    served: bool


@dataclass(frozen=True, kw_only=True)
class VectorSource:
    """What a served vector was embedded from (to embed it again)."""

    vector_id: str
    doc_id: str
    kind: str  # "p" (passage) or "s" (summary)
    text: str


@dataclass(frozen=True, kw_only=True)
class LexicalRow:
    """A served node as the lexical index reads it: a passage's text or a summary's."""

    node_id: str
    level: str
    heading_path: list[str]
    text: str


@dataclass(frozen=True, kw_only=True)
class PassageRow:
    """A passage of a build, in document order, for query-free selection."""

    node_id: str
    heading_path: str  # JSON, as stored: equal paths compare equal
    vector_id: str | None


@dataclass(frozen=True, kw_only=True)
class NodeRecord:
    """A stored node's provenance: everything a result needs except its text."""

    node_id: str
    build_id: int
    doc_id: str
    parent_id: str | None
    ordinal: int
    level: str
    title: str | None
    heading_path: tuple[str, ...]
    char_start: int
    char_end: int
    pages: tuple[int, int] | None
    vector_id: str | None
    summary_key: str | None
    n_passages: int
    first_passage: str | None
    last_passage: str | None
    covers: tuple[str, ...] | None = field(default=None)

    @property
    def is_passage(self) -> bool:
        """Passages are quoted; every other level is a summary."""
        return self.level == "passage"

    @property
    def kind(self) -> str:
        """``passage`` or ``summary``."""
        return "passage" if self.is_passage else "summary"

    @staticmethod
    def from_row(row: Row) -> NodeRecord:
        """A record from a ``nodes`` row."""
        pages = (
            (int(row["page_start"]), int(row["page_end"]))
            if row["page_start"] is not None
            else None
        )
        covers = tuple(json.loads(row["covers"])) if row["covers"] else None
        return NodeRecord(
            node_id=row["node_id"],
            build_id=int(row["build_id"]),
            doc_id=row["doc_id"],
            parent_id=row["parent_id"],
            ordinal=int(row["ordinal"]),
            level=row["level"],
            title=row["title"],
            heading_path=tuple(json.loads(row["heading_path"])),
            char_start=int(row["char_start"]),
            char_end=int(row["char_end"]),
            pages=pages,
            vector_id=row["vector_id"],
            summary_key=row["summary_key"],
            n_passages=int(row["n_passages"]),
            first_passage=row["first_passage"],
            last_passage=row["last_passage"],
            covers=covers,
        )
