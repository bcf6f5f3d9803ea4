"""The ``reviews`` and ``audit_log`` tables: expert verdicts on summaries, and who did what.

Both are append-only: a review is never updated (the latest row of a ``(doc_id, node_hash)`` is
that node's review) and the audit log refuses updates and deletes (schema triggers).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from indexer.store.backends import Row

if TYPE_CHECKING:
    from indexer.store.db import Database


@dataclass(frozen=True, kw_only=True)
class NewReview:
    """A review to record, with the node it is about."""

    doc_id: str
    node_hash: str
    node_id: str
    heading_path: str  # JSON, as stored on the node
    level: str
    summary_key: str | None
    status: str
    corrected_text: str | None
    note: str | None
    reviewer: str
    flags: list[dict[str, Any]]


class ReviewTable:
    """Reviews and the audit log."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def add(self, review: NewReview, *, log_detail: dict[str, Any]) -> int:
        """Store a review and its audit log entry in one transaction; return the review id."""
        now = time.time()
        with self._db.write() as db:
            row = db.execute(
                "INSERT INTO reviews (doc_id, node_hash, node_id, heading_path, level,"
                " summary_key, status, corrected_text, note, reviewer, flags, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING review_id",
                (
                    review.doc_id,
                    review.node_hash,
                    review.node_id,
                    review.heading_path,
                    review.level,
                    review.summary_key,
                    review.status,
                    review.corrected_text,
                    review.note,
                    review.reviewer,
                    json.dumps(review.flags),
                    now,
                ),
            ).fetchone()
            review_id = int(row[0])
            db.execute(
                "INSERT INTO audit_log (at, actor, action, doc_id, node_id, node_hash, review_id,"
                " detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    now,
                    review.reviewer,
                    f"review.{review.status}",
                    review.doc_id,
                    review.node_id,
                    review.node_hash,
                    review_id,
                    json.dumps(log_detail, ensure_ascii=False),
                ),
            )
        return review_id

    def log(self, *, actor: str, action: str, doc_id: str, detail: dict[str, Any]) -> int:
        """Append an audit log entry for a write that is not a review; return its id."""
        with self._db.write() as db:
            row = db.execute(
                "INSERT INTO audit_log (at, actor, action, doc_id, detail) VALUES (?, ?, ?, ?, ?)"
                " RETURNING entry_id",
                (time.time(), actor, action, doc_id, json.dumps(detail, ensure_ascii=False)),
            ).fetchone()
        return int(row[0])

    def get(self, review_id: int) -> Row | None:
        """One review row by id."""
        return self._db.db.execute(
            "SELECT * FROM reviews WHERE review_id = ?", (review_id,)
        ).fetchone()

    def of_documents(self, doc_ids: Iterable[str]) -> list[Row]:
        """Every review of these documents, oldest first."""
        rows = self._db.rows_in("SELECT * FROM reviews WHERE doc_id IN ({marks})", doc_ids)
        return sorted(rows, key=lambda r: r["review_id"])

    def corrections(self, doc_id: str) -> dict[str, str]:
        """The corrected text of each node hash whose latest review carries one."""
        rows = self._db.db.execute(
            "SELECT r.node_hash, r.corrected_text FROM reviews r"
            " WHERE r.doc_id = ? AND r.review_id = (SELECT MAX(review_id) FROM reviews"
            " WHERE doc_id = r.doc_id AND node_hash = r.node_hash)",
            (doc_id,),
        )
        return {h: text for h, text in rows if text is not None}

    def count(self) -> int:
        """Number of reviews ever recorded."""
        return int(self._db.db.execute("SELECT COUNT(*) FROM reviews").fetchone()[0])

    def log_page(self, *, doc_id: str | None, limit: int, offset: int) -> tuple[list[Row], int]:
        """One page of the audit log, newest first, and the number of entries in all."""
        where, args = ("WHERE doc_id = ?", (doc_id,)) if doc_id else ("", ())
        db = self._db.db
        total = db.execute(f"SELECT COUNT(*) FROM audit_log {where}", args).fetchone()[0]
        rows = db.execute(
            f"SELECT * FROM audit_log {where} ORDER BY entry_id DESC LIMIT ? OFFSET ?",
            (*args, limit, offset),
        ).fetchall()
        return rows, int(total)
