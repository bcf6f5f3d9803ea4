"""The SQLite catalog: documents, builds (revisions), nodes and the summary cache.

One file, WAL mode, so readers (queries) never wait for the writer (an ingest). A document's
``current_build`` points at its last complete build; a new build's nodes are written and the
pointer moved in one transaction, so a query sees either the old revision or the new one.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from indexer.errors import NotFoundError


@dataclass
class StoredSummary:
    """A cached summary and what wrote it."""

    key: str
    text: str
    backend: str
    model: str
    prompt_version: str


class Catalog:
    """Access to the SQLite system of record."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._local = threading.local()
        self._write_lock = threading.RLock()
        with self._write_lock:
            self.db.executescript(
                resources.files("indexer.store").joinpath("schema.sql").read_text()
            )

    # connections -------------------------------------------------------------------------
    @property
    def db(self) -> sqlite3.Connection:
        """This thread's connection (SQLite connections are not shared across threads)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            self._local.conn = conn
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE`` … ``COMMIT``), rolled back on error."""
        with self._write_lock:
            db = self.db
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # documents and builds ----------------------------------------------------------------
    def document(self, doc_id: str) -> sqlite3.Row | None:
        """The document row joined with its current build, or None."""
        return self.db.execute(
            "SELECT d.doc_id, d.source, d.current_build, b.revision, b.summarizer, b.embedder,"
            " b.format, b.root_node, b.report, b.completed_at"
            " FROM documents d LEFT JOIN builds b ON b.build_id = d.current_build"
            " WHERE d.doc_id = ?",
            (doc_id,),
        ).fetchone()

    def require_document(self, doc_id: str) -> sqlite3.Row:
        """The document, or NotFoundError."""
        row = self.document(doc_id)
        if row is None or row["current_build"] is None:
            raise NotFoundError(f"no document {doc_id!r}", detail={"doc_id": doc_id})
        return row

    def documents(self) -> list[sqlite3.Row]:
        """Every document with a complete build."""
        return self.db.execute(
            "SELECT d.doc_id, d.source, d.current_build, b.revision, b.summarizer, b.format,"
            " b.root_node, b.report, b.completed_at"
            " FROM documents d JOIN builds b ON b.build_id = d.current_build ORDER BY d.doc_id"
        ).fetchall()

    def current_builds(self) -> dict[str, int]:
        """``doc_id -> build_id`` of every served document."""
        rows = self.db.execute(
            "SELECT doc_id, current_build FROM documents WHERE current_build IS NOT NULL"
        )
        return {r["doc_id"]: r["current_build"] for r in rows}

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
            cur = db.execute(
                "INSERT INTO builds (doc_id, revision, status, format, summarizer, embedder, text,"
                " created_at) VALUES (?, ?, 'building', ?, ?, ?, ?, ?)",
                (doc_id, revision, fmt, summarizer, embedder, text, now),
            )
            return int(cur.lastrowid or 0)

    def finish_build(
        self,
        build_id: int,
        *,
        doc_id: str,
        source: str,
        root_node: str,
        nodes: Iterable[tuple[Any, ...]],
        report: dict[str, Any],
    ) -> None:
        """Write a build's nodes and make it the document's served revision, atomically."""
        now = time.time()
        with self.write() as db:
            db.executemany(
                "INSERT INTO nodes (node_id, build_id, doc_id, parent_id, ordinal, level, title,"
                " heading_path, char_start, char_end, page_start, page_end, hash, text,"
                " summary_key, vector_id, n_passages, first_passage, last_passage, covers)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                nodes,
            )
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
            db.execute("DELETE FROM builds WHERE doc_id = ?", (doc_id,))
            db.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))

    def build_text(self, build_id: int) -> str:
        """The extracted text of a build."""
        row = self.db.execute("SELECT text FROM builds WHERE build_id = ?", (build_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no build {build_id}")
        return str(row["text"])

    # nodes ----------------------------------------------------------------------------------
    def nodes_of_build(self, build_id: int) -> list[sqlite3.Row]:
        """All nodes of one build in pre-order."""
        return self.db.execute(
            "SELECT * FROM nodes WHERE build_id = ? ORDER BY ordinal", (build_id,)
        ).fetchall()

    def node(self, node_id: str) -> sqlite3.Row | None:
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

    # summary cache -----------------------------------------------------------------------
    def summary_rows(self, keys: Iterable[str]) -> dict[str, sqlite3.Row]:
        """Cached summary rows (key, text, backend, model, prompt_version) by key."""
        out: dict[str, sqlite3.Row] = {}
        unique = sorted(set(keys))
        for i in range(0, len(unique), 500):
            chunk = unique[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for r in self.db.execute(
                "SELECT key, text, backend, model, prompt_version FROM summaries"
                f" WHERE key IN ({marks})",
                chunk,
            ):
                out[r["key"]] = r
        return out

    def summaries(self, keys: Iterable[str]) -> dict[str, StoredSummary]:
        """Cached summaries for the given keys (missing keys are absent from the result)."""
        return {
            k: StoredSummary(k, r["text"], r["backend"], r["model"], r["prompt_version"])
            for k, r in self.summary_rows(keys).items()
        }

    def put_summaries(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Store computed summaries.

        Each row is ``(key, text, backend, model, prompt_version, in_tokens, out_tokens, parts)``.
        """
        now = time.time()
        with self.write() as db:
            db.executemany(
                "INSERT OR REPLACE INTO summaries (key, text, backend, model, prompt_version,"
                " input_tokens, output_tokens, parts, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(*r, now) for r in rows],
            )
