"""The job worker says what it does: claims, takeovers, ends, each with its job's fields.

A real queue on a real SQLite catalog; a runner that finishes one job and fails another; a
job claimed by a worker that then died (its lease runs out), taken over by the consumer.
"""

from __future__ import annotations

import logging
import time
import uuid
from pathlib import Path

import pytest

from api.service.job_worker import QueueConsumer
from indexer.settings import Settings
from indexer.store.catalog import Catalog
from indexer.store.job_queue import JobQueue


def _submit(queue: JobQueue, tmp_path: Path, doc_id: str) -> str:
    job_id = uuid.uuid4().hex
    upload = tmp_path / job_id
    upload.write_bytes(b"# D\n\ntext\n")
    assert queue.create(job_id=job_id, doc_id=doc_id, filename="d.md", upload=upload, size=9)
    time.sleep(0.002)  # distinct created_at: the queue is oldest first
    return job_id


def _events(caplog: pytest.LogCaptureFixture) -> list[tuple[str, dict[str, object]]]:
    return [
        (r.job_event, r.job)  # type: ignore[attr-defined]
        for r in caplog.records
        if r.name == "api.service.job_worker" and hasattr(r, "job_event")
    ]


def test_claims_takeovers_and_ends_are_logged_with_their_fields(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(store=tmp_path / "store", embedder="hashing", job_max_attempts=2)
    catalog = Catalog(tmp_path / "c.db")
    queue = JobQueue(catalog)
    orphan = _submit(queue, tmp_path, "orphan.md")
    good = _submit(queue, tmp_path, "good.md")
    bad = _submit(queue, tmp_path, "bad.md")
    dead = queue.claim("dead-worker", lease_seconds=0.05, max_running=5)
    assert dead is not None and dead.job_id == orphan
    time.sleep(0.1)  # the dead worker's lease runs out

    def run(job_id: str) -> None:
        failed = job_id == bad
        queue.finish(
            job_id,
            status="failed" if failed else "done",
            progress={"stage": "done"},
            error={"code": "bad_input", "message": "no"} if failed else None,
        )

    consumer = QueueConsumer(queue, catalog, settings, worker="w1", run=run, after_job=lambda: None)
    caplog.set_level(logging.INFO, logger="api.service.job_worker")
    consumer.start(1)
    deadline = time.monotonic() + 60
    ended = ("done", "failed")
    while any(queue.get(j).status not in ended for j in (orphan, good, bad)):
        assert time.monotonic() < deadline, "the consumer did not run the jobs"
        time.sleep(0.05)
    consumer.stop(timeout=10, release=True)

    events = _events(caplog)
    by = {(e, f["job_id"]): f for e, f in events}
    expired = by[("lease expired, queued again", orphan)]
    assert expired["lost"] == "dead-worker" and expired["attempt"] == 1
    taken = by[("taken over", orphan)]
    assert taken == {"job_id": orphan, "doc_id": "orphan.md", "worker": "w1", "attempt": 2}
    assert by[("claimed", good)]["attempt"] == 1 and by[("claimed", bad)]["worker"] == "w1"
    assert by[("finished", orphan)]["attempt"] == 2
    finished = by[("finished", good)]
    assert finished["doc_id"] == "good.md" and isinstance(finished["seconds"], float)
    failed = by[("failed", bad)]
    assert failed["error"] == "bad_input" and failed["doc_id"] == "bad.md"
    assert ("finished", bad) not in by and ("failed", good) not in by
    # a line a person reads carries the same fields
    line = next(r.getMessage() for r in caplog.records if getattr(r, "job_event", "") == "failed")
    assert f"job_id={bad}" in line and "doc_id=bad.md" in line and "error=bad_input" in line
