"""The catalog: documents, builds (revisions), nodes and the summary cache.

On SQLite (one file, WAL mode) or PostgreSQL; readers (queries) never wait for the writer (an
ingest). A document's
``current_build`` points at its last complete build; a new build's nodes are written and the
pointer moved in one transaction, so a query sees either the old revision or the new one.

The catalog is the one object per database: its tables beyond documents and builds are reached
through its attributes (``nodes``, ``reviews``, ``lint``, ``keys``, ``jobs``, ``history``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexer.errors import NotFoundError
from indexer.store.backends import Row
from indexer.store.db import Database
from indexer.store.history import HistoryTable
from indexer.store.jobs import JobStore
from indexer.store.keys import KeyTable
from indexer.store.lint_flags import LintFlagTable
from indexer.store.nodes import NodeTable
from indexer.store.records import BuildInfo, NewSummary, ServedDocument, StoredSummary
from indexer.store.reviews import ReviewTable
from indexer.store.vector_copies import VectorCopies

if TYPE_CHECKING:
    from indexer.store.rows import NodeRow  # the tree code: for the builds that write nodes

_NODE_COLUMNS = (
    "node_id", "build_id", "doc_id", "parent_id", "ordinal", "level", "title", "heading_path",
    "char_start", "char_end", "page_start", "page_end", "hash", "text", "summary_key",
    "vector_id", "n_passages", "first_passage", "last_passage", "covers", "sentences",
)  # fmt: skip
_NODE_INSERT = (
    f"INSERT INTO nodes ({', '.join(_NODE_COLUMNS)})"
    f" VALUES ({', '.join('?' for _ in _NODE_COLUMNS)})"
)


def _node_values(row: NodeRow) -> tuple[object, ...]:
    """A node row's values in column order. Not ``dataclasses.astuple``: it deep-copies every
    field, a third of the time of writing a build's nodes."""
    return tuple(getattr(row, name) for name in _NODE_COLUMNS)


class Catalog(Database):
    """Access to the system of record (a SQLite file or a PostgreSQL database)."""

    def __init__(self, location: Path | str) -> None:
        super().__init__(location)
        self.nodes = NodeTable(self)
        self.reviews = ReviewTable(self)
        self.lint = LintFlagTable(self)
        self.keys = KeyTable(self)
        self.jobs = JobStore(self)
        self.vector_copies = VectorCopies(self)
        self.history = HistoryTable(self)

    # documents and builds ----------------------------------------------------------------
    def document(self, doc_id: str) -> Row | None:
        """The document row joined with its current build, or None."""
        return self.db.execute(
            "SELECT d.doc_id, d.source, d.current_build, b.revision, b.summarizer, b.embedder,"
            " b.format, b.root_node, b.report, b.completed_at"
            " FROM documents d LEFT JOIN builds b ON b.build_id = d.current_build"
            " WHERE d.doc_id = ?",
            (doc_id,),
        ).fetchone()

    def require_document(self, doc_id: str) -> Row:
        """The document, or NotFoundError."""
        row = self.document(doc_id)
        if row is None or row["current_build"] is None:
            raise NotFoundError(f"no document {doc_id!r}", detail={"doc_id": doc_id})
        return row

    def documents(self) -> list[Row]:
        """Every document with a complete build."""
        return self.db.execute(
            "SELECT d.doc_id, d.source, d.current_build, b.revision, b.summarizer, b.format,"
            " b.root_node, b.report, b.completed_at"
            " FROM documents d JOIN builds b ON b.build_id = d.current_build ORDER BY d.doc_id"
        ).fetchall()

    def served_document_count(self) -> int:
        """Number of documents with a served revision."""
        row = self.db.execute(
            "SELECT COUNT(*) FROM documents WHERE current_build IS NOT NULL"
        ).fetchone()
        return int(row[0])

    def served_documents(self) -> list[ServedDocument]:
        """The served build of every document, read in one statement."""
        rows = self.db.execute(
            "SELECT d.doc_id, d.source, b.build_id, b.revision, b.summarizer, b.root_node"
            " FROM documents d JOIN builds b ON b.build_id = d.current_build"
        ).fetchall()
        return [
            ServedDocument(
                doc_id=r["doc_id"],
                source=r["source"],
                build_id=int(r["build_id"]),
                revision=r["revision"],
                summarizer=r["summarizer"],
                root_node=r["root_node"],
            )
            for r in rows
        ]

    def current_builds(self) -> dict[str, int]:
        """``doc_id -> build_id`` of every served document."""
        rows = self.db.execute(
            "SELECT doc_id, current_build FROM documents WHERE current_build IS NOT NULL"
        )
        return {r["doc_id"]: r["current_build"] for r in rows}

    def current_build(self, doc_id: str) -> int | None:
        """The served build of one document, or None."""
        row = self.db.execute(
            "SELECT current_build FROM documents WHERE doc_id = ?", (doc_id,)
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def revisions(self, doc_id: str) -> list[BuildInfo]:
        """Completed revisions of a document, oldest first."""
        rows = self.db.execute(
            "SELECT b.build_id, b.doc_id, b.revision, b.status, b.embedder, b.completed_at,"
            " d.current_build FROM builds b LEFT JOIN documents d ON d.doc_id = b.doc_id"
            " WHERE b.doc_id = ? AND b.status IN ('complete', 'superseded') ORDER BY b.build_id",
            (doc_id,),
        ).fetchall()
        return [_build_info(r) for r in rows]

    def builds(self, build_ids: Iterable[int]) -> dict[int, BuildInfo]:
        """Builds by id (any status)."""
        rows = self.rows_in(
            "SELECT b.build_id, b.doc_id, b.revision, b.status, b.embedder, b.completed_at,"
            " d.current_build FROM builds b LEFT JOIN documents d ON d.doc_id = b.doc_id"
            " WHERE b.build_id IN ({marks})",
            build_ids,
        )
        return {int(r["build_id"]): _build_info(r) for r in rows}

    def start_build(
        self,
        *,
        doc_id: str,
        source: str,
        revision: str,
        fmt: str,
        summarizer: str,
        embedder: str,
        text: str,
    ) -> int:
        """Open a new build of a document; earlier unfinished builds of it are marked failed."""
        now = time.time()
        with self.write() as db:
            db.execute(
                "UPDATE builds SET status = 'failed' WHERE doc_id = ? AND status = 'building'",
                (doc_id,),
            )
            db.execute(
                "INSERT INTO documents (doc_id, source, current_build, created_at, updated_at)"
                " VALUES (?, ?, NULL, ?, ?) ON CONFLICT (doc_id) DO NOTHING",
                (doc_id, source, now, now),
            )
            row = db.execute(
                "INSERT INTO builds (doc_id, revision, status, format, summarizer, embedder, text,"
                " created_at) VALUES (?, ?, 'building', ?, ?, ?, ?, ?) RETURNING build_id",
                (doc_id, revision, fmt, summarizer, embedder, text, now),
            ).fetchone()
            return int(row[0])

    def finish_build(
        self,
        build_id: int,
        *,
        doc_id: str,
        source: str,
        root_node: str,
        nodes: Iterable[NodeRow],
        report: dict[str, Any],
    ) -> None:
        """Write a build's nodes and make it the document's served revision, atomically."""
        now = time.time()
        with self.write() as db:
            db.executemany(_NODE_INSERT, map(_node_values, nodes))
            db.execute(
                "UPDATE builds SET status = 'superseded' WHERE doc_id = ? AND status = 'complete'",
                (doc_id,),
            )
            db.execute(
                "UPDATE builds SET status = 'complete', root_node = ?, report = ?,"
                " completed_at = ? WHERE build_id = ?",
                (root_node, json.dumps(report), now, build_id),
            )
            db.execute(
                "UPDATE documents SET current_build = ?, source = ?, updated_at = ?"
                " WHERE doc_id = ?",
                (build_id, source, now, doc_id),
            )

    def fail_build(self, build_id: int) -> None:
        """Mark a build that stopped with an error."""
        with self.write() as db:
            db.execute(
                "UPDATE builds SET status = 'failed' WHERE build_id = ? AND status = 'building'",
                (build_id,),
            )

    def delete_document(self, doc_id: str) -> None:
        """Remove a document, all its builds and nodes (cached summaries stay: they are a cache)."""
        with self.write() as db:
            db.execute("DELETE FROM nodes WHERE doc_id = ?", (doc_id,))
            db.execute(
                "DELETE FROM revision_changes WHERE build_id IN"
                " (SELECT build_id FROM builds WHERE doc_id = ?)",
                (doc_id,),
            )
            db.execute("DELETE FROM pruned_revisions WHERE doc_id = ?", (doc_id,))
            db.execute("DELETE FROM builds WHERE doc_id = ?", (doc_id,))
            db.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))

    def build_text(self, build_id: int) -> str:
        """The extracted text of a build."""
        row = self.db.execute("SELECT text FROM builds WHERE build_id = ?", (build_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no build {build_id}")
        return str(row["text"])

    # nodes (the whole-build reads; the rest is ``self.nodes``) ------------------------------
    def nodes_of_build(self, build_id: int) -> list[Row]:
        """All nodes of one build in pre-order."""
        return self.db.execute(
            "SELECT * FROM nodes WHERE build_id = ? ORDER BY ordinal", (build_id,)
        ).fetchall()

    def node(self, node_id: str) -> Row | None:
        """One node by id."""
        return self.db.execute("SELECT * FROM nodes WHERE node_id = ?", (node_id,)).fetchone()

    def vector_ids_of_build(self, build_id: int) -> set[str]:
        """Vector ids referenced by one build."""
        rows = self.db.execute(
            "SELECT DISTINCT vector_id FROM nodes WHERE build_id = ? AND vector_id IS NOT NULL",
            (build_id,),
        )
        return {r[0] for r in rows}

    def served_vector_ids(self) -> set[str]:
        """Vector ids referenced by the served build of every document."""
        rows = self.db.execute(
            "SELECT DISTINCT n.vector_id FROM nodes n JOIN documents d"
            " ON n.build_id = d.current_build WHERE n.vector_id IS NOT NULL"
        )
        return {r[0] for r in rows}

    def served_encoders(self) -> dict[str, list[str]]:
        """The encoder of each served build's vectors, with the documents it serves."""
        rows = self.db.execute(
            "SELECT b.embedder, d.doc_id FROM documents d JOIN builds b"
            " ON b.build_id = d.current_build ORDER BY d.doc_id"
        )
        out: dict[str, list[str]] = {}
        for r in rows:
            out.setdefault(r["embedder"], []).append(r["doc_id"])
        return out

    def served_builds_not_encoded_by(self, encoder: str) -> list[tuple[str, int]]:
        """``(doc_id, build_id)`` of the served builds whose vectors another encoder made."""
        rows = self.db.execute(
            "SELECT d.doc_id, b.build_id FROM documents d JOIN builds b"
            " ON b.build_id = d.current_build WHERE b.embedder != ? ORDER BY d.doc_id",
            (encoder,),
        )
        return [(r["doc_id"], r["build_id"]) for r in rows]

    def set_build_encoder(self, build_id: int, encoder: str) -> None:
        """Record that a build's vectors are now ``encoder``'s."""
        with self.write() as db:
            db.execute("UPDATE builds SET embedder = ? WHERE build_id = ?", (encoder, build_id))

    def served_level_counts(self) -> dict[str, int]:
        """Nodes of served revisions, by level."""
        rows = self.db.execute(
            "SELECT n.level, COUNT(*) FROM nodes n JOIN documents d"
            " ON n.build_id = d.current_build GROUP BY n.level"
        )
        return {str(r[0]): int(r[1]) for r in rows}

    # summary cache -----------------------------------------------------------------------
    def summary_rows(self, keys: Iterable[str]) -> dict[str, Row]:
        """Cached summary rows (key, text, backend, model, prompt_version, sentences) by key."""
        rows = self.rows_in(
            "SELECT key, text, backend, model, prompt_version, sentences FROM summaries"
            " WHERE key IN ({marks})",
            keys,
        )
        return {r["key"]: r for r in rows}

    def summaries(self, keys: Iterable[str]) -> dict[str, StoredSummary]:
        """Cached summaries for the given keys (missing keys are absent from the result)."""
        return {
            k: StoredSummary(
                key=k,
                text=r["text"],
                backend=r["backend"],
                model=r["model"],
                prompt_version=r["prompt_version"],
                sentences_json=r["sentences"],
            )
            for k, r in self.summary_rows(keys).items()
        }

    def summary_count(self) -> int:
        """Summaries in the cache (every document's, every revision's)."""
        return int(self.db.execute("SELECT COUNT(*) FROM summaries").fetchone()[0])

    def put_summaries(self, summaries: Iterable[NewSummary]) -> None:
        """Store computed summaries."""
        now = time.time()
        rows = [
            (
                s.key,
                s.text,
                s.backend,
                s.model,
                s.prompt_version,
                s.input_tokens,
                s.output_tokens,
                s.parts,
                s.sentences_json,
                now,
            )
            for s in summaries
        ]
        with self.write() as db:
            db.executemany(
                "INSERT INTO summaries (key, text, backend, model, prompt_version,"
                " input_tokens, output_tokens, parts, sentences, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET"
                " text = excluded.text, backend = excluded.backend, model = excluded.model,"
                " prompt_version = excluded.prompt_version, input_tokens = excluded.input_tokens,"
                " output_tokens = excluded.output_tokens, parts = excluded.parts,"
                " sentences = excluded.sentences, created_at = excluded.created_at",
                rows,
            )

    # benchmarks and checks -----------------------------------------------------------------
    def build_inputs(self, build_id: int) -> Row:
        """What a build was made from and with: ``format``, ``summarizer``, ``embedder``, ``text``.

        Raises:
            NotFoundError: No build has that id.
        """
        row = self.db.execute(
            "SELECT format, summarizer, embedder, text FROM builds WHERE build_id = ?",
            (build_id,),
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no build {build_id}")
        return row

    def completed_revisions(self) -> set[tuple[str, str]]:
        """``(doc_id, revision)`` of every build that completed: served, superseded since, or
        superseded and then dropped by the retention rule (only completed builds are pruned)."""
        rows = self.db.execute(
            "SELECT doc_id, revision FROM builds WHERE status IN ('complete', 'superseded') "
            "UNION SELECT doc_id, revision FROM pruned_revisions"
        )
        return {(r["doc_id"], r["revision"]) for r in rows}


def _build_info(row: Row) -> BuildInfo:
    return BuildInfo(
        build_id=int(row["build_id"]),
        doc_id=row["doc_id"],
        revision=row["revision"],
        status=row["status"],
        embedder=row["embedder"],
        completed_at=row["completed_at"],
        served=row["current_build"] == row["build_id"],
    )
