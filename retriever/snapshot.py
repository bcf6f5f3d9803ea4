"""What a query may see: the served build of every document, read once per query.

A query takes one :class:`Snapshot` (``doc_id -> served build``) before it looks at any
candidate, and every node it returns must belong to one of those builds. Builds are immutable
once complete, so a query that races an ingest sees the previous revision of a document or the
new one, never a mix: candidates from a build that is not in the snapshot (a build still being
written, or one published after the query started) are dropped.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from indexer.store.catalog import Catalog

_CHUNK = 500
_NODE_COLUMNS = (
    "node_id, build_id, doc_id, parent_id, ordinal, level, title, heading_path, char_start,"
    " char_end, page_start, page_end, vector_id, summary_key, n_passages, first_passage,"
    " last_passage, covers"
)


@dataclass(frozen=True)
class ServedDocument:
    """A document's served revision."""

    doc_id: str
    source: str
    build_id: int
    revision: str
    summarizer: str


@dataclass(frozen=True)
class Snapshot:
    """The served build of every document at one instant."""

    documents: dict[str, ServedDocument]

    @cached_property
    def by_build(self) -> dict[int, ServedDocument]:
        """Served documents by build id."""
        return {d.build_id: d for d in self.documents.values()}

    @cached_property
    def generation(self) -> tuple[tuple[str, int], ...]:
        """``(doc_id, build_id)`` pairs, sorted: equal generations serve equal nodes."""
        return tuple(sorted((d.doc_id, d.build_id) for d in self.documents.values()))

    def builds(self, doc_ids: Iterable[str] | None = None) -> frozenset[int]:
        """Served build ids, of the given documents only when ``doc_ids`` is given."""
        if doc_ids is None:
            return frozenset(self.by_build)
        return frozenset(self.documents[d].build_id for d in doc_ids if d in self.documents)


def take_snapshot(catalog: Catalog) -> Snapshot:
    """The served build of every document, read in one statement."""
    rows = catalog.db.execute(
        "SELECT d.doc_id, d.source, b.build_id, b.revision, b.summarizer FROM documents d"
        " JOIN builds b ON b.build_id = d.current_build"
    ).fetchall()
    return Snapshot(
        {
            r["doc_id"]: ServedDocument(
                r["doc_id"], r["source"], int(r["build_id"]), r["revision"], r["summarizer"]
            )
            for r in rows
        }
    )


class SnapshotSource:
    """Snapshots of one catalog, re-read only after something was committed.

    Reading the served builds costs milliseconds with a thousand documents; ``PRAGMA
    data_version`` (changed by any other connection's commit) and the connection's own
    ``total_changes`` tell for microseconds whether anything could have changed since.
    """

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._local = threading.local()

    def take(self) -> Snapshot:
        """The current snapshot (cached per thread until a commit)."""
        db = self.catalog.db
        key = (id(db), db.execute("PRAGMA data_version").fetchone()[0], db.total_changes)
        cached = getattr(self._local, "cached", None)
        if cached is not None and cached[0] == key:
            return cached[1]  # type: ignore[no-any-return]
        snapshot = take_snapshot(self.catalog)
        self._local.cached = (key, snapshot)
        return snapshot


@dataclass(frozen=True)
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
    def from_row(row: sqlite3.Row) -> NodeRecord:
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


def nodes_by_vector(
    db: sqlite3.Connection, vector_ids: list[str], builds: frozenset[int]
) -> dict[str, list[NodeRecord]]:
    """Nodes of the given builds that use each vector id (identical texts share one vector)."""
    out: dict[str, list[NodeRecord]] = {}
    for chunk in _chunks(vector_ids):
        marks = ",".join("?" * len(chunk))
        for row in db.execute(
            f"SELECT {_NODE_COLUMNS} FROM nodes WHERE vector_id IN ({marks}) ORDER BY ordinal",
            chunk,
        ):
            if row["build_id"] in builds:
                out.setdefault(row["vector_id"], []).append(NodeRecord.from_row(row))
    return out


def nodes_by_id(
    db: sqlite3.Connection, node_ids: list[str], builds: frozenset[int]
) -> dict[str, NodeRecord]:
    """Nodes by id, restricted to the given builds."""
    out: dict[str, NodeRecord] = {}
    for chunk in _chunks(node_ids):
        marks = ",".join("?" * len(chunk))
        for row in db.execute(
            f"SELECT {_NODE_COLUMNS} FROM nodes WHERE node_id IN ({marks})", chunk
        ):
            if row["build_id"] in builds:
                out[row["node_id"]] = NodeRecord.from_row(row)
    return out


def passages_below(
    db: sqlite3.Connection, node: NodeRecord, *, limit: int | None = None
) -> list[NodeRecord]:
    """The passages a summary node covers, in document order."""
    if node.covers is not None:
        found = nodes_by_id(db, list(node.covers), frozenset({node.build_id}))
        ordered = [found[i] for i in node.covers if i in found]
        return ordered[:limit] if limit else ordered
    if node.first_passage is None or node.last_passage is None:
        return []
    bounds = db.execute(
        "SELECT ordinal FROM nodes WHERE node_id IN (?, ?) ORDER BY ordinal",
        (node.first_passage, node.last_passage),
    ).fetchall()
    lo, hi = int(bounds[0][0]), int(bounds[-1][0])
    rows = db.execute(
        f"SELECT {_NODE_COLUMNS} FROM nodes WHERE build_id = ? AND ordinal BETWEEN ? AND ?"
        " AND level = 'passage' ORDER BY ordinal" + (f" LIMIT {int(limit)}" if limit else ""),
        (node.build_id, lo, hi),
    ).fetchall()
    return [NodeRecord.from_row(r) for r in rows]


def texts_of(
    db: sqlite3.Connection, nodes: Iterable[NodeRecord]
) -> dict[str, tuple[str, str | None]]:
    """Each node's text and writer: a passage's own text; a summary and its summarizer."""
    nodes = list(nodes)
    out: dict[str, tuple[str, str | None]] = {}
    passage_ids = [n.node_id for n in nodes if n.is_passage]
    for chunk in _chunks(passage_ids):
        marks = ",".join("?" * len(chunk))
        for row in db.execute(f"SELECT node_id, text FROM nodes WHERE node_id IN ({marks})", chunk):
            out[row["node_id"]] = (row["text"] or "", None)
    keys = list({n.summary_key for n in nodes if not n.is_passage and n.summary_key})
    by_key: dict[str, tuple[str, str | None]] = {}
    for chunk in _chunks(keys):
        marks = ",".join("?" * len(chunk))
        for row in db.execute(
            f"SELECT key, text, backend, model, prompt_version FROM summaries"
            f" WHERE key IN ({marks})",
            chunk,
        ):
            writer = f"{row['backend']}/{row['model']}@{row['prompt_version']}"
            by_key[row["key"]] = (row["text"], writer)
    for n in nodes:
        if not n.is_passage:
            out[n.node_id] = by_key.get(n.summary_key or "", ("", None))
    return out


def _chunks(items: list[str]) -> Iterable[list[str]]:
    for i in range(0, len(items), _CHUNK):
        yield items[i : i + _CHUNK]
