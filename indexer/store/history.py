"""Revision history tables: per-build counts, pins, pruned revisions and one-line changes.

The reads and writes of :mod:`indexer.revisions` and :mod:`indexer.retention`; only this module
speaks SQL about revisions beyond what the catalog itself does.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from indexer.store.backends import Row
from indexer.store.records import BuildInfo

if TYPE_CHECKING:
    from indexer.store.db import Database


@dataclass(frozen=True, kw_only=True)
class BuildCounts:
    """How much one build holds."""

    sections: int
    passages: int
    summaries: int


@dataclass(frozen=True, kw_only=True)
class PrunedRevision:
    """A revision the retention rule dropped."""

    doc_id: str
    revision: str
    build_id: int
    ingested_at: float | None
    pruned_at: float


@dataclass(frozen=True, kw_only=True)
class DroppedBuild:
    """What deleting one build removed from the catalog."""

    build_id: int
    nodes: int
    vector_ids: list[str]


class HistoryTable:
    """Counts, pins, pruning and the one-line change of each revision."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def counts(self, build_ids: Iterable[int]) -> dict[int, BuildCounts]:
        """Sections (chapters and sections), passages and summaries of each build."""
        rows = self._db.rows_in(
            "SELECT build_id,"
            " SUM(CASE WHEN level IN ('chapter', 'section') THEN 1 ELSE 0 END) AS sections,"
            " SUM(CASE WHEN level = 'passage' THEN 1 ELSE 0 END) AS passages,"
            " SUM(CASE WHEN level != 'passage' AND summary_key IS NOT NULL THEN 1 ELSE 0 END)"
            " AS summaries"
            " FROM nodes WHERE build_id IN ({marks}) GROUP BY build_id",
            build_ids,
        )
        return {
            int(r["build_id"]): BuildCounts(
                sections=int(r["sections"] or 0),
                passages=int(r["passages"] or 0),
                summaries=int(r["summaries"] or 0),
            )
            for r in rows
        }

    def pinned_builds(self, doc_id: str) -> dict[int, str]:
        """Builds of a document an open review or a correction holds on to, with why.

        A review pins the build it was made in when it is its node's latest review and either
        carries a correction or is stale (its node's source is gone from the served build: the
        expert re-checks it against the text it was made on).
        """
        rows = self._db.db.execute(
            "SELECT n.build_id, r.corrected_text IS NOT NULL AS corrected FROM reviews r"
            " JOIN nodes n ON n.node_id = r.node_id"
            " WHERE r.doc_id = ? AND r.review_id = (SELECT MAX(review_id) FROM reviews"
            " WHERE doc_id = r.doc_id AND node_hash = r.node_hash)"
            " AND (r.corrected_text IS NOT NULL OR NOT EXISTS (SELECT 1 FROM nodes s"
            " JOIN documents d ON s.build_id = d.current_build"
            " WHERE d.doc_id = r.doc_id AND s.hash = r.node_hash))",
            (doc_id,),
        ).fetchall()
        out: dict[int, str] = {}
        for r in rows:
            reason = "correction" if r["corrected"] else "open review"
            if out.get(int(r["build_id"])) != "correction":
                out[int(r["build_id"])] = reason
        return out

    def drop_build(
        self,
        build_id: int,
        *,
        doc_id: str,
        revision: str,
        ingested_at: float | None,
        completed: bool = True,
    ) -> DroppedBuild:
        """Delete a superseded build and its nodes, remember it as pruned if it had completed
        (a failed build was never a revision); the vector ids only it referenced are returned
        (the caller drops them from both vector copies)."""
        with self._db.write() as db:
            served = db.execute(
                "SELECT 1 FROM documents WHERE current_build = ?", (build_id,)
            ).fetchone()
            if served is not None:
                raise ValueError(f"build {build_id} is served; it cannot be pruned")
            ids = {
                r[0]
                for r in db.execute(
                    "SELECT DISTINCT vector_id FROM nodes WHERE build_id = ?"
                    " AND vector_id IS NOT NULL",
                    (build_id,),
                )
            }
            n = db.execute("DELETE FROM nodes WHERE build_id = ?", (build_id,)).rowcount
            db.execute("DELETE FROM builds WHERE build_id = ?", (build_id,))
            db.execute("DELETE FROM revision_changes WHERE build_id = ?", (build_id,))
            if completed:
                db.execute(
                    "INSERT INTO pruned_revisions (doc_id, revision, build_id, ingested_at,"
                    " pruned_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (doc_id, revision, build_id)"
                    " DO UPDATE SET ingested_at = excluded.ingested_at,"
                    " pruned_at = excluded.pruned_at",
                    (doc_id, revision, build_id, ingested_at, time.time()),
                )
            still = {
                r[0]
                for r in self._db.rows_in(
                    "SELECT DISTINCT vector_id FROM nodes WHERE vector_id IN ({marks})", ids
                )
            }
        return DroppedBuild(build_id=build_id, nodes=int(n), vector_ids=sorted(ids - still))

    def pruned(self, doc_id: str) -> list[PrunedRevision]:
        """The revisions of a document the retention rule dropped, oldest first."""
        rows = self._db.db.execute(
            "SELECT * FROM pruned_revisions WHERE doc_id = ? ORDER BY build_id", (doc_id,)
        ).fetchall()
        return [_pruned(r) for r in rows]

    def documents_with_builds(self) -> list[str]:
        """Every doc_id that has a build, sorted."""
        rows = self._db.db.execute("SELECT DISTINCT doc_id FROM builds ORDER BY doc_id")
        return [r[0] for r in rows]

    def all_builds(self, doc_id: str) -> list[BuildInfo]:
        """Every build of a document, whatever its status, oldest first."""
        rows = self._db.db.execute(
            "SELECT b.build_id, b.doc_id, b.revision, b.status, b.embedder, b.completed_at,"
            " d.current_build FROM builds b LEFT JOIN documents d ON d.doc_id = b.doc_id"
            " WHERE b.doc_id = ? ORDER BY b.build_id",
            (doc_id,),
        ).fetchall()
        return [
            BuildInfo(
                build_id=int(r["build_id"]),
                doc_id=r["doc_id"],
                revision=r["revision"],
                status=r["status"],
                embedder=r["embedder"],
                completed_at=r["completed_at"],
                served=r["current_build"] == r["build_id"],
            )
            for r in rows
        ]

    def changed_since(self, since: float) -> list[Row]:
        """Builds completed at or after ``since`` (epoch seconds), oldest first."""
        return self._db.db.execute(
            "SELECT b.build_id, b.doc_id, b.revision, b.completed_at, d.source FROM builds b"
            " JOIN documents d ON d.doc_id = b.doc_id WHERE b.status IN ('complete', 'superseded')"
            " AND b.completed_at >= ? ORDER BY b.completed_at, b.build_id",
            (since,),
        ).fetchall()

    def change_lines(
        self, build_ids: Iterable[int]
    ) -> dict[int, tuple[str | None, str, dict[str, int]]]:
        """The stored one-line change of each build: (previous revision, line, counts)."""
        rows = self._db.rows_in(
            "SELECT build_id, previous, line, counts FROM revision_changes"
            " WHERE build_id IN ({marks})",
            build_ids,
        )
        return {
            int(r["build_id"]): (r["previous"], r["line"], json.loads(r["counts"])) for r in rows
        }

    def put_change_line(
        self, build_id: int, *, previous: str | None, line: str, counts: dict[str, int]
    ) -> None:
        """Store a build's one-line change."""
        with self._db.write() as db:
            db.execute(
                "INSERT INTO revision_changes (build_id, previous, line, counts)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (build_id) DO UPDATE SET"
                " previous = excluded.previous, line = excluded.line, counts = excluded.counts",
                (build_id, previous, line, json.dumps(counts)),
            )

    def file_pages(self) -> tuple[int, int, int]:
        """The catalog's page size, page count and free pages (PostgreSQL: none free)."""
        return self._db.backend.storage_pages()

    def vacuum(self) -> None:
        """Give the free pages back to the file system (SQLite rewrites the file; readers
        continue)."""
        self._db.backend.compact()


def _pruned(row: Row) -> PrunedRevision:
    return PrunedRevision(
        doc_id=row["doc_id"],
        revision=row["revision"],
        build_id=int(row["build_id"]),
        ingested_at=row["ingested_at"],
        pruned_at=float(row["pruned_at"]),
    )
