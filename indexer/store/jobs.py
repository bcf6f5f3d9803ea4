"""The ``jobs`` table: ingestion jobs as stored (the runner is :mod:`api.service.jobs`)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from indexer.errors import NotFoundError
from indexer.store.backends import Row

if TYPE_CHECKING:
    from indexer.store.db import Database

JobStatus = Literal["queued", "running", "done", "failed"]
JOB_STATUSES: tuple[JobStatus, ...] = ("queued", "running", "done", "failed")


@dataclass
class Job:
    """One ingestion job as stored."""

    job_id: str
    doc_id: str
    filename: str
    size: int
    status: JobStatus
    progress: dict[str, Any]
    report: dict[str, Any] | None
    error: dict[str, Any] | None
    retry_of: str | None
    created_at: float
    started_at: float | None
    finished_at: float | None
    upload: str | None
    attempts: int = 0
    worker: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The job as the HTTP API shows it."""
        return {
            "job_id": self.job_id,
            "doc_id": self.doc_id,
            "filename": self.filename,
            "size": self.size,
            "status": self.status,
            "progress": self.progress,
            "report": self.report,
            "error": self.error,
            "retry_of": self.retry_of,
            "retryable": self.status == "failed" and self.upload is not None,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "attempts": self.attempts,
            "worker": self.worker,
        }


def _job(row: Row) -> Job:
    return Job(
        job_id=row["job_id"],
        doc_id=row["doc_id"],
        filename=row["filename"],
        size=row["size"],
        status=row["status"],
        progress=json.loads(row["progress"] or "{}"),
        report=json.loads(row["report"]) if row["report"] else None,
        error=json.loads(row["error"]) if row["error"] else None,
        retry_of=row["retry_of"],
        created_at=row["created_at"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        upload=row["upload"],
        attempts=int(row["attempts"] or 0),
        worker=row["worker_id"],
    )


class JobStore:
    """The ``jobs`` table."""

    def __init__(self, database: Database) -> None:
        self.catalog = database

    def create(
        self,
        *,
        job_id: str,
        doc_id: str,
        filename: str,
        upload: Path,
        size: int,
        retry_of: str | None = None,
        max_pending: int | None = None,
    ) -> Job | None:
        """Record a new queued job; None when ``max_pending`` jobs are queued or running already
        (counted in the same transaction, so replicas sharing the catalog share the limit)."""
        with self.catalog.write() as db:
            if max_pending is not None and self.pending() >= max_pending:
                return None
            db.execute(
                "INSERT INTO jobs (job_id, doc_id, filename, upload, size, status, progress,"
                " retry_of, created_at) VALUES (?, ?, ?, ?, ?, 'queued', ?, ?, ?)",
                (
                    job_id,
                    doc_id,
                    filename,
                    str(upload),
                    size,
                    json.dumps({"stage": "queued"}),
                    retry_of,
                    time.time(),
                ),
            )
        return self.get(job_id)

    def get(self, job_id: str) -> Job:
        """One job, or NotFoundError."""
        row = self.catalog.db.execute("SELECT * FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no job {job_id!r}", detail={"job_id": job_id})
        return _job(row)

    def recent(self, *, status: str | None = None, limit: int = 100) -> list[Job]:
        """Jobs, newest first, optionally of one status."""
        if status is not None:
            rows = self.catalog.db.execute(
                "SELECT * FROM jobs WHERE status = ? ORDER BY created_at DESC LIMIT ?",
                (status, limit),
            )
        else:
            rows = self.catalog.db.execute(
                "SELECT * FROM jobs ORDER BY created_at DESC LIMIT ?", (limit,)
            )
        return [_job(r) for r in rows]

    def counts(self) -> dict[str, int]:
        """Number of jobs by status (every status present)."""
        out: dict[str, int] = dict.fromkeys(JOB_STATUSES, 0)
        for r in self.catalog.db.execute("SELECT status, COUNT(*) FROM jobs GROUP BY status"):
            out[r[0]] = int(r[1])
        return out

    def pending(self) -> int:
        """Jobs queued or running."""
        row = self.catalog.db.execute(
            "SELECT COUNT(*) FROM jobs WHERE status IN ('queued', 'running')"
        ).fetchone()
        return int(row[0])

    def queued_ids(self) -> list[str]:
        """Queued jobs, oldest first."""
        rows = self.catalog.db.execute(
            "SELECT job_id FROM jobs WHERE status = 'queued' ORDER BY created_at"
        )
        return [r[0] for r in rows]

    def start(self, job_id: str) -> bool:
        """Mark a queued job running; False when it is not queued any more."""
        with self.catalog.write() as db:
            cur = db.execute(
                "UPDATE jobs SET status = 'running', started_at = ?, progress = ?,"
                " attempts = attempts + 1 WHERE job_id = ? AND status = 'queued'",
                (time.time(), json.dumps({"stage": "starting"}), job_id),
            )
        return cur.rowcount == 1

    def set_progress(self, job_id: str, progress: dict[str, Any]) -> None:
        """Store a running job's progress."""
        with self.catalog.write() as db:
            db.execute(
                "UPDATE jobs SET progress = ? WHERE job_id = ? AND status = 'running'",
                (json.dumps(progress), job_id),
            )

    def finish(
        self,
        job_id: str,
        *,
        status: JobStatus,
        progress: dict[str, Any],
        report: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
        keep_upload: bool = False,
        worker: str | None = None,
    ) -> bool:
        """Mark a job done or failed; ``keep_upload`` keeps the file for a retry.

        With ``worker``, only while that worker holds the job (False: another worker took it
        over after this one's lease expired, and nothing is changed).
        """
        owned = "" if worker is None else " AND worker_id = ?"
        with self.catalog.write() as db:
            cur = db.execute(
                "UPDATE jobs SET status = ?, progress = ?, report = ?, error = ?,"
                " finished_at = ?, upload = CASE WHEN ? THEN upload ELSE NULL END,"
                f" lease_until = NULL WHERE job_id = ?{owned}",
                (
                    status,
                    json.dumps(progress),
                    json.dumps(report) if report is not None else None,
                    json.dumps(error) if error is not None else None,
                    time.time(),
                    keep_upload,
                    job_id,
                    *(() if worker is None else (worker,)),
                ),
            )
        return cur.rowcount == 1

    def take_upload(self, job_id: str) -> str | None:
        """Detach a failed job's kept upload (a retry takes it over)."""
        with self.catalog.write() as db:
            row = db.execute(
                "SELECT upload FROM jobs WHERE job_id = ? AND status = 'failed'", (job_id,)
            ).fetchone()
            if row is None or row[0] is None:
                return None
            db.execute("UPDATE jobs SET upload = NULL WHERE job_id = ?", (job_id,))
            return str(row[0])

    def kept_uploads(self) -> set[str]:
        """The upload files that jobs still hold (for a retry or a run to come)."""
        rows = self.catalog.db.execute("SELECT upload FROM jobs WHERE upload IS NOT NULL")
        return {str(r[0]) for r in rows}

    def submitted_at(self, job_id: str) -> float:
        """When a job's upload was first submitted: a retry inherits its original's time."""
        row = self.catalog.db.execute(
            "WITH RECURSIVE chain (job_id, retry_of, created_at) AS ("
            " SELECT job_id, retry_of, created_at FROM jobs WHERE job_id = ?"
            " UNION SELECT j.job_id, j.retry_of, j.created_at FROM jobs j"
            " JOIN chain c ON j.job_id = c.retry_of)"
            " SELECT MIN(created_at) FROM chain",
            (job_id,),
        ).fetchone()
        if row is None or row[0] is None:
            raise NotFoundError(f"no job {job_id!r}", detail={"job_id": job_id})
        return float(row[0])

    def open_jobs(self, doc_id: str) -> list[Job]:
        """A document's jobs that may still publish: queued, or failed with their upload kept."""
        rows = self.catalog.db.execute(
            "SELECT * FROM jobs WHERE doc_id = ? AND (status = 'queued'"
            " OR (status = 'failed' AND upload IS NOT NULL)) ORDER BY created_at",
            (doc_id,),
        )
        return [_job(r) for r in rows]

    def supersede(self, job_id: str, error: dict[str, Any]) -> str | None:
        """Fail a queued or retryable job as superseded; return its upload (now unreferenced)."""
        with self.catalog.write() as db:
            row = db.execute(
                "SELECT upload FROM jobs WHERE job_id = ? AND (status = 'queued'"
                " OR (status = 'failed' AND upload IS NOT NULL))",
                (job_id,),
            ).fetchone()
            if row is None:
                return None
            db.execute(
                "UPDATE jobs SET status = 'failed', error = ?, upload = NULL,"
                " finished_at = ? WHERE job_id = ?",
                (json.dumps(error), time.time(), job_id),
            )
            return None if row[0] is None else str(row[0])

    def record_publish(self, doc_id: str, *, as_of: float, revision: str | None) -> None:
        """Note that ``doc_id`` now serves ``revision`` (None: deleted), submitted at ``as_of``."""
        with self.catalog.write() as db:
            db.execute(
                "INSERT INTO publishes (doc_id, as_of, revision) VALUES (?, ?, ?)"
                " ON CONFLICT (doc_id) DO UPDATE SET as_of = CASE"
                " WHEN excluded.as_of > publishes.as_of THEN excluded.as_of"
                " ELSE publishes.as_of END,"
                " revision = excluded.revision",
                (doc_id, as_of, revision),
            )

    def last_publish(self, doc_id: str) -> tuple[float, str | None] | None:
        """``(as_of, revision)`` of the document's last publish or deletion, or None."""
        row = self.catalog.db.execute(
            "SELECT as_of, revision FROM publishes WHERE doc_id = ?", (doc_id,)
        ).fetchone()
        return None if row is None else (float(row[0]), row[1])
