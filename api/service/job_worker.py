"""Consuming the job queue: claim, heartbeat, run, finish or give back (any number of processes).

Each consumer thread claims the oldest queued job from the catalog (:mod:`indexer.store.job_queue`)
and runs it; one heartbeat thread renews the leases of the jobs this process runs every third
of ``job_lease_seconds``. A process killed mid-job stops renewing: once its lease has run out,
the next worker to look queues the job again (up to ``job_max_attempts`` runs) and runs it from
the summaries the killed run had already committed to the cache.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable

from indexer.settings import Settings
from indexer.store.catalog import Catalog
from indexer.store.job_queue import JobQueue
from indexer.store.jobs import Job
from indexer.supersession import supersede_jobs

log = logging.getLogger(__name__)

_IDLE_POLL = 0.25  # seconds between two looks at an empty queue


def worker_name(kind: str, settings: Settings) -> str:
    """A worker id: the in-process worker of a store keeps one across restarts (its store
    lock proves that its previous incarnation is dead); a worker process is named by its pid."""
    host = socket.gethostname()
    if kind == "serve":
        return f"serve@{host}:{settings.store.resolve()}"
    return f"worker@{host}:{os.getpid()}"


class QueueConsumer:
    """Threads that take jobs from the shared queue and hand each to ``run(job_id)``."""

    def __init__(
        self,
        queue: JobQueue,
        catalog: Catalog,
        settings: Settings,
        *,
        worker: str,
        run: Callable[[str], None],
        after_job: Callable[[], None],
    ) -> None:
        self.queue = queue
        self.catalog = catalog
        self.settings = settings
        self.worker = worker
        self._run = run
        self._after_job = after_job
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._beat_stop = threading.Event()
        self._beat_thread: threading.Thread | None = None
        self._threads: list[threading.Thread] = []
        self._running: set[str] = set()
        self._lock = threading.Lock()

    @property
    def lease_seconds(self) -> float:
        """How long a claim lasts without a heartbeat."""
        return self.settings.job_lease_seconds

    def recover(self) -> dict[str, list[str]]:
        """Before consuming: end this worker's own leases of a previous run, expire the leases
        of dead workers and supersede what a newer revision made obsolete.

        Returns:
            ``{"interrupted": [...], "resumed": [...]}``: jobs failed as interrupted, and jobs
            queued (again).
        """
        self.queue.drop_leases(self.worker)
        requeued, failed = self.expire()
        for job_id in failed:
            log.warning("job %s was interrupted (its worker stopped): marked failed", job_id)
        for doc_id in {self.queue.get(j).doc_id for j in self.queue.queued_ids()}:
            self._supersede(doc_id)
        return {"interrupted": failed, "resumed": self.queue.queued_ids()}

    def expire(self) -> tuple[list[str], list[str]]:
        """Queue again or fail the jobs whose lease ran out; supersede the failed ones' peers."""
        requeued, failed = self.queue.expire(max_attempts=self.settings.job_max_attempts)
        for job_id in requeued:
            job = self.queue.get(job_id)
            lost = job.progress.get("lost_worker")
            _log_job(logging.WARNING, "lease expired, queued again", job, self.worker, lost=lost)
        for doc_id in {self.queue.get(j).doc_id for j in failed}:
            self._supersede(doc_id)
        return requeued, failed

    def _supersede(self, doc_id: str) -> None:
        for job_id in supersede_jobs(self.catalog, doc_id):
            log.warning("job %s is superseded by a newer revision of %s", job_id, doc_id)

    def start(self, threads: int) -> None:
        """Start ``threads`` consumers and the heartbeat."""
        self._stopping.clear()
        for i in range(threads):
            t = threading.Thread(target=self._consume, name=f"overstory-job-{i}", daemon=True)
            t.start()
            self._threads.append(t)
        self._beat_stop.clear()
        beat = threading.Thread(target=self._beat, name="overstory-job-heartbeat", daemon=True)
        beat.start()
        self._beat_thread = beat

    def wake(self) -> None:
        """A job was queued by this process: look now rather than at the next poll."""
        self._wake.set()

    def stop(self, *, timeout: float, release: bool) -> None:
        """Stop claiming; wait up to ``timeout`` s for the running jobs. ``release`` gives the
        ones still running back to the queue (a stopping worker); else their leases lapse."""
        self._stopping.set()
        self._wake.set()
        deadline = time.monotonic() + timeout
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))
        self._beat_stop.set()
        if self._beat_thread is not None:
            self._beat_thread.join(5)
        if release:
            with self._lock:
                left = sorted(self._running)
            for job_id in left:
                if self.queue.release(self.worker, job_id):
                    log.warning("job %s given back to the queue at stop", job_id)
        self._threads = []

    def _consume(self) -> None:
        while not self._stopping.is_set():
            try:
                job_id = self._claim()
            except Exception:  # the catalog may be briefly unavailable: keep polling
                log.exception("claiming a job failed")
                job_id = None
            if job_id is None:
                self._wake.wait(_IDLE_POLL)
                self._wake.clear()
                continue
            started = time.monotonic()
            try:
                self._run(job_id)
            except Exception:  # a worker must survive anything one job does
                log.exception("job %s: unexpected error in the runner", job_id)
            finally:
                self._log_end(job_id, time.monotonic() - started)
                with self._lock:
                    self._running.discard(job_id)
                self._after_job()

    def _claim(self) -> str | None:
        if not self.queue.has_work():
            return None
        self.expire()
        with self._lock:  # registered before the claim commits, so the heartbeat covers it
            job = self.queue.claim(
                self.worker,
                lease_seconds=self.lease_seconds,
                max_running=self.settings.max_concurrent_jobs,
            )
            if job is not None:
                self._running.add(job.job_id)
        if job is None:
            return None
        event = "taken over" if job.attempts > 1 else "claimed"
        _log_job(logging.INFO, event, job, self.worker)
        return job.job_id

    def _log_end(self, job_id: str, seconds: float) -> None:
        try:
            job = self.queue.get(job_id)
        except Exception:  # the log line must not take the worker down
            log.exception("job %s: reading its outcome failed", job_id)
            return
        if job.status == "done":
            _log_job(logging.INFO, "finished", job, self.worker, seconds=seconds)
        elif job.status == "failed":
            code = (job.error or {}).get("code")
            _log_job(logging.WARNING, "failed", job, self.worker, seconds=seconds, error=code)

    def _beat(self) -> None:
        # Until the last job has ended, stopping included: a lease must outlive its job.
        while not self._beat_stop.wait(self.lease_seconds / 3):
            with self._lock:
                running = sorted(self._running)
            try:
                held = self.queue.heartbeat(self.worker, running, lease_seconds=self.lease_seconds)
            except Exception:
                log.exception("renewing the job leases failed")
                continue
            for job_id in set(running) - held:
                log.warning("job %s: lease lost (taken over by another worker)", job_id)


def _log_job(level: int, event: str, job: Job, worker: str, **more: object) -> None:
    """One line per job event, its fields also on the record (``record.job``) for handlers
    that write them as data."""
    fields: dict[str, object] = {
        "job_id": job.job_id,
        "doc_id": job.doc_id,
        "worker": worker,
        "attempt": job.attempts,
    }
    fields.update({k: round(v, 3) if isinstance(v, float) else v for k, v in more.items()})
    text = " ".join(f"{k}={v}" for k, v in fields.items() if v is not None)
    log.log(level, "job %s: %s", event, text, extra={"job_event": event, "job": fields})
