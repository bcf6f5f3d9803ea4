"""The job queue on the real catalog: claims, leases, heartbeats, takeovers, the attempts cap.

Each simulated worker has its own :class:`Catalog` (its own connections), as separate processes
do; time moves by giving leases a length of a fraction of a second. Every test runs on SQLite
and on PostgreSQL (``backends``).
"""

from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path

import pytest

from indexer.store.catalog import Catalog
from indexer.store.job_queue import JobQueue

LEASE = 30.0
pytestmark = pytest.mark.backends


@pytest.fixture
def location(tmp_path: Path, database_url: str) -> Path | str:
    """The catalog every simulated worker of a test opens."""
    return database_url or tmp_path / "c.db"


def _queue(location: Path | str) -> JobQueue:
    return JobQueue(Catalog(location))


def _submit(queue: JobQueue, tmp_path: Path, n: int = 1, *, doc: str = "d.md") -> list[str]:
    ids = []
    for i in range(n):
        job_id = uuid.uuid4().hex
        upload = tmp_path / job_id
        upload.write_bytes(b"# D\n\ntext\n")
        job = queue.create(job_id=job_id, doc_id=f"{i}-{doc}", filename=doc, upload=upload, size=9)
        assert job is not None
        ids.append(job_id)
        time.sleep(0.002)  # distinct created_at: the queue is oldest first
    return ids


def test_a_claim_takes_the_oldest_job_under_a_lease(tmp_path: Path, location: Path | str) -> None:
    q = _queue(location)
    first, second = _submit(q, tmp_path, 2)
    job = q.claim("w1", lease_seconds=LEASE, max_running=5)
    assert job is not None and job.job_id == first
    assert job.status == "running" and job.worker == "w1" and job.attempts == 1
    row = q.get(first)
    assert row.to_json()["worker"] == "w1"
    other = q.claim("w2", lease_seconds=LEASE, max_running=5)
    assert other is not None and other.job_id == second
    assert q.claim("w3", lease_seconds=LEASE, max_running=5) is None


def test_max_running_is_counted_over_every_worker(tmp_path: Path, location: Path | str) -> None:
    path = location
    q1, q2 = _queue(path), _queue(path)
    _submit(q1, tmp_path, 3)
    assert q1.claim("w1", lease_seconds=LEASE, max_running=2) is not None
    assert q2.claim("w2", lease_seconds=LEASE, max_running=2) is not None
    assert q2.claim("w2", lease_seconds=LEASE, max_running=2) is None
    assert q1.running() == 2 and q1.pending() == 3


def test_concurrent_workers_claim_every_job_exactly_once(
    tmp_path: Path, location: Path | str
) -> None:
    path = location
    ids = _submit(_queue(path), tmp_path, 40)
    claimed: dict[str, list[str]] = {}

    def work(name: str) -> None:
        q = _queue(path)
        mine = claimed.setdefault(name, [])
        while (job := q.claim(name, lease_seconds=LEASE, max_running=100)) is not None:
            mine.append(job.job_id)
            assert q.finish(job.job_id, status="done", progress={}, worker=name)

    threads = [threading.Thread(target=work, args=(f"w{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    every = [j for jobs in claimed.values() for j in jobs]
    assert sorted(every) == sorted(ids)
    assert len(set(every)) == len(every)
    assert _queue(path).counts()["done"] == 40


def test_a_heartbeat_keeps_the_job_and_an_expired_lease_is_taken_over(
    tmp_path: Path, location: Path | str
) -> None:
    path = location
    q1, q2 = _queue(path), _queue(path)
    (job_id,) = _submit(q1, tmp_path)
    assert q1.claim("w1", lease_seconds=0.3, max_running=5) is not None
    for _ in range(3):  # renewed: never expires while w1 beats
        time.sleep(0.15)
        assert q1.heartbeat("w1", [job_id], lease_seconds=0.3) == {job_id}
        assert q2.expire(max_attempts=3) == ([], [])
    time.sleep(0.4)  # w1 stops beating (killed)
    assert q2.expire(max_attempts=3) == ([job_id], [])
    job = q2.get(job_id)
    assert job.status == "queued" and job.progress["lost_worker"] == "w1"
    taken = q2.claim("w2", lease_seconds=LEASE, max_running=5)
    assert taken is not None and taken.job_id == job_id and taken.attempts == 2
    # The first worker comes back: its lease is gone, its result is refused.
    assert q1.heartbeat("w1", [job_id], lease_seconds=LEASE) == set()
    assert not q1.finish(job_id, status="done", progress={}, worker="w1")
    assert q2.finish(job_id, status="done", progress={}, worker="w2")
    assert q1.get(job_id).status == "done"


def test_a_job_that_kills_its_workers_ends_failed_interrupted(
    tmp_path: Path, location: Path | str
) -> None:
    q = _queue(location)
    (job_id,) = _submit(q, tmp_path)
    for attempt in range(1, 4):
        job = q.claim(f"w{attempt}", lease_seconds=0.05, max_running=5)
        assert job is not None and job.attempts == attempt
        time.sleep(0.1)  # the worker dies on this file
        requeued, failed = q.expire(max_attempts=3)
        assert (requeued, failed) == (([job_id], []) if attempt < 3 else ([], [job_id]))
    job = q.get(job_id)
    assert job.status == "failed"
    assert job.error is not None and job.error["code"] == "interrupted"
    assert job.error["detail"] == {"attempts": 3}
    assert "3 times" in job.error["message"]
    assert job.to_json()["retryable"] is True  # the upload is kept for a retry
    assert q.claim("w4", lease_seconds=LEASE, max_running=5) is None


def test_release_gives_the_job_back_without_counting_the_run(
    tmp_path: Path, location: Path | str
) -> None:
    q = _queue(location)
    (job_id,) = _submit(q, tmp_path)
    assert q.claim("w1", lease_seconds=LEASE, max_running=5) is not None
    assert not q.release("w2", job_id)  # not w2's
    assert q.release("w1", job_id)
    job = q.get(job_id)
    assert job.status == "queued" and job.attempts == 0 and job.worker is None
    again = q.claim("w2", lease_seconds=LEASE, max_running=5)
    assert again is not None and again.attempts == 1


def test_a_restarted_worker_ends_its_own_leases_at_once(
    tmp_path: Path, location: Path | str
) -> None:
    q = _queue(location)
    (job_id,) = _submit(q, tmp_path)
    assert q.claim("serve@here", lease_seconds=LEASE, max_running=5) is not None
    assert q.expire(max_attempts=1) == ([], [])  # the lease is still valid
    assert q.drop_leases("serve@here") == [job_id]
    assert q.expire(max_attempts=1) == ([], [job_id])
    assert q.get(job_id).error["code"] == "interrupted"  # type: ignore[index]


def test_the_queue_limit_is_checked_where_the_job_is_created(
    tmp_path: Path, location: Path | str
) -> None:
    path = location
    q1, q2 = _queue(path), _queue(path)
    upload = tmp_path / "u"
    upload.write_bytes(b"x")
    kw = {"doc_id": "d", "filename": "d.md", "upload": upload, "size": 1, "max_pending": 2}
    assert q1.create(job_id="a", **kw) is not None  # type: ignore[arg-type]
    assert q2.create(job_id="b", **kw) is not None  # type: ignore[arg-type]
    assert q1.create(job_id="c", **kw) is None  # type: ignore[arg-type]
    assert q2.has_work()


def test_a_transient_error_queues_the_job_again_and_the_run_counts(
    tmp_path: Path, location: Path | str
) -> None:
    q = _queue(location)
    (job_id,) = _submit(q, tmp_path)
    assert q.claim("w1", lease_seconds=LEASE, max_running=5) is not None
    error = {"code": "backend_error", "message": "Chroma did not answer", "detail": None}
    assert not q.requeue("w2", job_id, error)  # only the holder may
    assert q.requeue("w1", job_id, error)
    job = q.get(job_id)
    assert job.status == "queued" and job.worker is None
    assert job.progress["last_error"]["code"] == "backend_error"
    again = q.claim("w2", lease_seconds=LEASE, max_running=5)
    assert again is not None and again.attempts == 2
