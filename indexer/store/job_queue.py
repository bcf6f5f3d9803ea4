"""The ``jobs`` table as a queue that any number of workers share: claims, leases, takeovers.

A worker *claims* the oldest queued job in one write transaction (on SQLite ``BEGIN IMMEDIATE``
serializes claims between processes; on PostgreSQL ``FOR UPDATE SKIP LOCKED`` lets concurrent
claims pass each other), recording its id and ``lease_until``; it renews the lease
by :meth:`JobQueue.heartbeat` while the job runs. A job whose lease ran out (its worker was
killed, or lost the catalog) is *expired*: queued again for another worker while it has runs
left (``attempts`` < the cap), failed as ``interrupted`` (upload kept, retryable) after that, so
a file that kills every worker that reads it ends failed instead of looping.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from indexer.errors import JobInterruptedError
from indexer.store.jobs import Job, JobStore

if TYPE_CHECKING:
    from indexer.store.db import Database

_EXPIRED = "status = 'running' AND (lease_until IS NULL OR lease_until < ?)"


class JobQueue(JobStore):
    """The job table with the operations of workers."""

    def __init__(self, database: Database) -> None:
        super().__init__(database)

    def has_work(self, now: float | None = None) -> bool:
        """Whether a job is queued or a lease has expired (one cheap read, no write lock)."""
        now = time.time() if now is None else now
        row = self.catalog.db.execute(
            f"SELECT 1 FROM jobs WHERE status = 'queued' OR ({_EXPIRED}) LIMIT 1", (now,)
        ).fetchone()
        return row is not None

    def running(self, now: float | None = None) -> int:
        """Jobs running under a live lease, counted over every worker."""
        now = time.time() if now is None else now
        row = self.catalog.db.execute(
            "SELECT COUNT(*) FROM jobs WHERE status = 'running' AND lease_until >= ?", (now,)
        ).fetchone()
        return int(row[0])

    def claim(self, worker: str, *, lease_seconds: float, max_running: int) -> Job | None:
        """Take the oldest queued job for ``worker``; None when there is none or ``max_running``
        jobs already run (every worker counted)."""
        now = time.time()
        with self.catalog.write() as db:
            if self.running(now) >= max_running:
                return None
            # SQLite's write transaction already serializes claims; PostgreSQL's workers skip
            # the rows another claim holds rather than wait for it.
            skip = " FOR UPDATE SKIP LOCKED" if self.catalog.dialect == "postgresql" else ""
            row = db.execute(
                f"SELECT job_id FROM jobs WHERE status = 'queued' ORDER BY created_at LIMIT 1{skip}"
            ).fetchone()
            if row is None:
                return None
            db.execute(
                "UPDATE jobs SET status = 'running', worker_id = ?, lease_until = ?,"
                " attempts = attempts + 1, started_at = COALESCE(started_at, ?), progress = ?"
                " WHERE job_id = ?",
                (worker, now + lease_seconds, now, json.dumps({"stage": "starting"}), row[0]),
            )
        return self.get(str(row[0]))

    def heartbeat(self, worker: str, job_ids: list[str], *, lease_seconds: float) -> set[str]:
        """Renew the worker's leases; the ids it still holds (a missing one was taken over)."""
        if not job_ids:
            return set()
        held: set[str] = set()
        with self.catalog.write() as db:
            for job_id in job_ids:
                cur = db.execute(
                    "UPDATE jobs SET lease_until = ? WHERE job_id = ? AND worker_id = ?"
                    " AND status = 'running'",
                    (time.time() + lease_seconds, job_id, worker),
                )
                if cur.rowcount == 1:
                    held.add(job_id)
        return held

    def release(self, worker: str, job_id: str) -> bool:
        """Give a running job back to the queue (a worker stopping); its run is not counted."""
        with self.catalog.write() as db:
            cur = db.execute(
                "UPDATE jobs SET status = 'queued', worker_id = NULL, lease_until = NULL,"
                " attempts = attempts - 1, progress = ? WHERE job_id = ? AND worker_id = ?"
                " AND status = 'running'",
                (json.dumps({"stage": "queued", "released_by": worker}), job_id, worker),
            )
        return cur.rowcount == 1

    def requeue(self, worker: str, job_id: str, error: dict[str, Any]) -> bool:
        """Queue a job that ``worker`` holds again after a transient error (the run counts)."""
        progress = {"stage": "queued", "last_error": error}
        with self.catalog.write() as db:
            cur = db.execute(
                "UPDATE jobs SET status = 'queued', worker_id = NULL, lease_until = NULL,"
                " progress = ? WHERE job_id = ? AND worker_id = ? AND status = 'running'",
                (json.dumps(progress), job_id, worker),
            )
        return cur.rowcount == 1

    def drop_leases(self, worker: str) -> list[str]:
        """End the leases ``worker`` held before it restarted (only it can know it died)."""
        with self.catalog.write() as db:
            rows = db.execute(
                "SELECT job_id FROM jobs WHERE worker_id = ? AND status = 'running'", (worker,)
            ).fetchall()
            db.execute(
                "UPDATE jobs SET lease_until = 0 WHERE worker_id = ? AND status = 'running'",
                (worker,),
            )
        return [str(r[0]) for r in rows]

    def expire(self, *, max_attempts: int) -> tuple[list[str], list[str]]:
        """Deal with jobs whose lease ran out: ``(queued again, failed as interrupted)``."""
        now = time.time()
        requeued: list[str] = []
        failed: list[str] = []
        with self.catalog.write() as db:
            rows = db.execute(
                f"SELECT job_id, attempts, worker_id FROM jobs WHERE {_EXPIRED}", (now,)
            ).fetchall()
            for job_id, attempts, worker in rows:
                if int(attempts) < max_attempts:
                    db.execute(
                        "UPDATE jobs SET status = 'queued', worker_id = NULL, lease_until = NULL,"
                        " progress = ? WHERE job_id = ?",
                        (json.dumps({"stage": "queued", "lost_worker": worker}), job_id),
                    )
                    requeued.append(str(job_id))
                    continue
                db.execute(
                    "UPDATE jobs SET status = 'failed', error = ?, finished_at = ?,"
                    " lease_until = NULL WHERE job_id = ?",
                    (json.dumps(_interrupted(str(job_id), int(attempts))), now, job_id),
                )
                failed.append(str(job_id))
        return requeued, failed


def _interrupted(job_id: str, attempts: int) -> dict[str, Any]:
    runs = "once" if attempts <= 1 else f"{attempts} times"
    return JobInterruptedError(
        f"the worker running this job stopped ({runs}, setting job_max_attempts); retry it "
        f"(POST /v1/jobs/{job_id}/retry) or upload again: work already done is reused",
        detail={"attempts": attempts},
    ).to_json()
