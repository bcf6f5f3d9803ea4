"""Ingestion jobs: uploads saved to a folder, queued in the catalog, run by workers.

A job's life: the upload is checked (type, size, parse) and saved under ``uploads_dir``
(default ``<store>/uploads``) before the job row exists, so nothing acknowledged is ever lost;
the job is ``queued``, then ``running`` under the lease of one worker, then ``done`` (with the
same report as ``overstory ingest --json``) or ``failed`` (with a canonical error). At most
``max_queued_jobs`` jobs wait or run and at most ``max_concurrent_jobs`` run, counted in the
catalog over every replica and worker; a further upload gets :class:`TooManyJobsError` (429).

Workers are the service's own threads (unless setting ``run_jobs`` is false) and any number of
``overstory worker`` processes sharing the catalog (:mod:`api.service.job_worker`). A worker
that dies (``kill -9``) stops renewing its lease; the job is then run again by another worker,
from the summaries and vectors already committed, up to ``job_max_attempts`` runs (default 1:
a single server restarting reports the job interrupted, as it always did); after that it is
failed with code ``interrupted`` and keeps its upload, so ``retry`` (or uploading again)
completes it and a file that kills its workers cannot put them in a crash loop. The indexer
publishes a build atomically, so a partial revision is never served. Only one service serves
a store folder (a lock file enforces it).

A job whose upload is older than the revision served now (another upload, a CLI ingest or a
deletion published since it was submitted) is *superseded* (:mod:`indexer.supersession`): it is
failed with code ``superseded``, its upload discarded, and a retry is refused (409), since
publishing it would roll the document back.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from api.service.job_models import JobProgressPublic
from api.service.job_worker import QueueConsumer, worker_name
from api.service.store_check import CheckPublic
from indexer.budget import check_budget
from indexer.doc_ids import normalize_doc_id
from indexer.errors import (
    BackendError,
    BadInputError,
    CatalogUnavailableError,
    ConfigError,
    ConflictError,
    JobSupersededError,
    OverstoryError,
    TooLargeError,
    TooManyJobsError,
    UnsupportedFormatError,
)
from indexer.index import Index
from indexer.ingest import parse_reusing
from indexer.parsers.registry import is_supported, supported_suffixes
from indexer.progress import ProgressEvent
from indexer.settings import uploads_folder
from indexer.store.job_queue import JobQueue
from indexer.store.jobs import JOB_STATUSES, Job, JobStatus, JobStore
from indexer.supersession import job_supersession

log = logging.getLogger(__name__)
__all__ = ["JOB_STATUSES", "Job", "JobRunner", "JobStatus", "JobStore"]

_PROGRESS_EVERY = 0.5  # seconds between progress writes: the ingest itself needs the writer
_CHUNK = 1024 * 1024
_STRAY_UPLOAD_SECONDS = 3600.0  # an unreferenced upload younger may be another replica's, arriving


@dataclass
class Upload:
    """An upload saved under the store, checked and ready to become a job."""

    path: Path
    size: int


class JobRunner:
    """Submits the ingestion jobs of one Index and, as a worker, runs queued ones."""

    def __init__(self, index: Index, *, worker: str | None = None) -> None:
        self.index = index
        self.settings = index.settings
        self.store = JobQueue(index.catalog)
        self.uploads = uploads_folder(self.settings)
        self.uploads.mkdir(parents=True, exist_ok=True)
        self.worker = worker or worker_name("serve", self.settings)
        self._consumer = QueueConsumer(
            self.store,
            index.catalog,
            self.settings,
            worker=self.worker,
            run=self.run,
            after_job=self._after_job,
        )
        self._consuming = False
        self._lock_file: IO[str] | None = None

    def _after_job(self) -> None:
        # The thread may wait long for its next job: it gives back its own connection only.
        self.index.catalog.release_thread()

    # lifecycle -----------------------------------------------------------------------------
    def acquire(self) -> None:
        """Take the store's service lock (held until :meth:`stop`); a no-op when held already.

        Raises:
            ConfigError: Another service already serves this store folder.
        """
        if self._lock_file is not None:
            return
        fh = open(self.settings.store / "service.lock", "w")  # noqa: SIM115 - held while serving
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            fh.close()
            raise ConfigError(
                f"another Overstory service is already serving the store {self.settings.store}"
            ) from exc
        self._lock_file = fh

    def start(self) -> dict[str, list[str]]:
        """The service's start: take the store's lock and, when the service runs jobs (setting
        ``run_jobs``), recover after a crash and start ``max_concurrent_jobs`` workers.

        Returns:
            ``{"interrupted": [...], "resumed": [...]}`` job ids (empty when not running jobs).

        Raises:
            ConfigError: Another service already serves this store folder.
        """
        self.acquire()
        if not self.settings.run_jobs:
            return {"interrupted": [], "resumed": []}
        return self.consume(self.settings.max_concurrent_jobs)

    def consume(self, threads: int) -> dict[str, list[str]]:
        """Recover (leases of dead workers, supersessions) and run queued jobs on ``threads``
        threads until :meth:`stop` (``overstory worker`` calls this without the store lock)."""
        recovered = self._consumer.recover()
        self._remove_stray_uploads()
        self._consumer.start(threads)
        self._consuming = True
        return recovered

    def stop(self, *, timeout: float = 30.0, release: bool = False) -> None:
        """Stop taking jobs; wait up to ``timeout`` s for running ones (others stay queued).

        A job still running after the timeout is given back to the queue with ``release``
        (a worker stopping on SIGTERM); otherwise its lease lapses, and it is taken over (or
        reported interrupted) as after a crash.
        """
        if self._consuming:
            self._consumer.stop(timeout=timeout, release=release)
            self._consuming = False
        if self._lock_file is not None:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()
            self._lock_file = None

    def _remove_stray_uploads(self) -> None:
        kept = self.store.kept_uploads()
        now = time.time()
        for path in self.uploads.iterdir():
            with contextlib.suppress(FileNotFoundError):
                if str(path) not in kept and now - path.stat().st_mtime > _STRAY_UPLOAD_SECONDS:
                    path.unlink(missing_ok=True)

    # submitting ------------------------------------------------------------------------------
    def check_upload(self, *, doc_id: str, filename: str) -> str:
        """Reject a bad name or type before reading the body; the normalized doc_id.

        Raises:
            InvalidRequestError: ``doc_id`` is absolute, contains ``..`` or control characters,
                is empty or too long (``indexer.doc_ids``).
            UnsupportedFormatError: No parser for the file name's extension.
        """
        doc_id = normalize_doc_id(doc_id)
        if not is_supported(filename):
            supported = ", ".join(sorted(s for s in supported_suffixes() if not s.endswith(".gz")))
            raise UnsupportedFormatError(
                f"unsupported file type for {filename!r} (supported: {supported}, and .gz)",
                detail={"filename": filename},
            )
        return doc_id

    def save_upload(self, chunks: Iterator[bytes]) -> Upload:
        """Write an upload under the store, stopping at ``max_document_bytes``.

        Raises:
            TooLargeError: The upload is over the limit (nothing is kept).
            BadInputError: The upload is empty.
        """
        limit = self.settings.max_document_bytes
        path = self.uploads / f"incoming-{uuid.uuid4().hex}"
        size = 0
        try:
            with open(path, "wb") as fh:
                for chunk in chunks:
                    size += len(chunk)
                    if size > limit:
                        raise TooLargeError(
                            f"the upload is over the limit of {limit:,} bytes "
                            "(setting max_document_bytes)",
                            detail={"limit": limit},
                        )
                    fh.write(chunk)
            if size == 0:
                raise BadInputError("the uploaded file is empty")
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        return Upload(path=path, size=size)

    def submit(self, upload: Upload, *, doc_id: str, filename: str) -> Job:
        """Check that the upload parses, then queue it as a job.

        Raises:
            BadInputError: The file is empty, binary or corrupt, or over the per-document budget
                ``max_document_tokens`` (the upload is discarded).
            TooManyJobsError: ``max_queued_jobs`` jobs are already waiting or running.
        """
        try:
            doc_id = self.check_upload(doc_id=doc_id, filename=filename)
            # Kept in the store's reuse cache: the job reads this parse back.
            parsed = parse_reusing(self.settings, upload.path.read_bytes(), filename)
            check_budget(self.settings, parsed, source=filename)
            job_id = uuid.uuid4().hex
            path = self.uploads / job_id
            os.replace(upload.path, path)
            upload.path = path
            job = self.store.create(
                job_id=job_id,
                doc_id=doc_id,
                filename=filename,
                upload=path,
                size=upload.size,
                max_pending=self.settings.max_queued_jobs,
            )
            if job is None:
                raise self._too_many_jobs()
        except BaseException:
            upload.path.unlink(missing_ok=True)
            raise
        self._consumer.wake()
        return job

    def retry(self, job_id: str) -> Job:
        """Queue a failed job's kept upload again as a new job.

        Raises:
            NotFoundError: No such job.
            JobSupersededError: A newer revision of the document was published (or it was
                deleted) since the job was submitted.
            ConflictError: The job is not failed, or its upload was not kept.
            TooManyJobsError: Too many jobs are waiting.
        """
        old = self.store.get(job_id)
        self._refuse_superseded(old)
        if old.status != "failed" or old.upload is None:
            raise ConflictError(
                f"job {job_id} cannot be retried: it is {old.status}"
                + ("" if old.status != "failed" else " and its upload was not kept"),
                detail={"job_id": job_id, "status": old.status},
            )
        if self.store.pending() >= self.settings.max_queued_jobs:
            raise self._too_many_jobs()
        taken = self.store.take_upload(job_id)
        if taken is None:
            raise ConflictError(f"job {job_id} was already retried")
        new_id = uuid.uuid4().hex
        path = self.uploads / new_id
        os.replace(taken, path)
        job = self.store.create(
            job_id=new_id,
            doc_id=old.doc_id,
            filename=old.filename,
            upload=path,
            size=old.size,
            retry_of=job_id,
        )
        assert job is not None  # no limit asked
        self._consumer.wake()
        return job

    def _refuse_superseded(self, job: Job) -> None:
        if job.error is not None and job.error.get("code") == JobSupersededError.code:
            raise JobSupersededError(job.error["message"], detail=job.error.get("detail"))
        if job.status != "failed" or job.upload is None:
            return
        error = job_supersession(self.index.catalog, job)
        if error is not None:
            self.store.supersede(job.job_id, error.to_json())
            self._discard(job.upload)
            raise error

    def _too_many_jobs(self) -> TooManyJobsError:
        limit = self.settings.max_queued_jobs
        return TooManyJobsError(
            f"{limit} ingestion jobs are already queued or running "
            "(setting max_queued_jobs); retry later",
            detail={"limit": limit},
        )

    # running -----------------------------------------------------------------------------------
    def run(self, job_id: str) -> None:
        """Run one job this worker has claimed to its end (done or failed)."""
        job = self.store.get(job_id)
        tracker = _ProgressTracker(self.store, job_id)
        try:
            assert job.upload is not None
            data = Path(job.upload).read_bytes()
            report = self.index.ingest_bytes(
                data,
                doc_id=job.doc_id,
                filename=job.filename,
                progress=tracker,
                as_of=self.store.submitted_at(job_id),
                job_id=job_id,
            )
        except JobSupersededError as exc:
            self._fail(job, tracker, exc.to_json(), keep_upload=False)
        except (BackendError, CatalogUnavailableError) as exc:
            # A backend that failed (Chroma, a summarizer server, the database) may answer the
            # next run: queued again while the job has runs left (the cache keeps the work).
            if job.attempts >= self.settings.job_max_attempts or not self.store.requeue(
                self.worker, job_id, exc.to_json()
            ):
                self._fail(job, tracker, exc.to_json(), keep_upload=True)
            else:
                log.warning("job %s: %s; queued again", job_id, exc.message)
        except OverstoryError as exc:
            # Bad input fails the same way again; anything else may succeed on a retry.
            keep = not isinstance(exc, BadInputError)
            self._fail(job, tracker, exc.to_json(), keep_upload=keep)
        except Exception as exc:
            log.exception("job %s failed", job_id)
            error = OverstoryError(f"ingest failed: {exc}").to_json()
            self._fail(job, tracker, error, keep_upload=True)
        else:
            tracker.stage = "done"
            if self.store.finish(
                job_id,
                status="done",
                progress=tracker.snapshot().model_dump(),
                report=report.to_json(),
                worker=self.worker,
            ):
                self._discard(job.upload)
            else:
                log.warning("job %s was taken over by another worker meanwhile", job_id)

    def _fail(
        self, job: Job, tracker: _ProgressTracker, error: dict[str, Any], *, keep_upload: bool
    ) -> None:
        finished = self.store.finish(
            job.job_id,
            status="failed",
            progress=tracker.snapshot().model_dump(),
            error=error,
            keep_upload=keep_upload,
            worker=self.worker,
        )
        if finished and not keep_upload:
            self._discard(job.upload)

    @staticmethod
    def _discard(upload: str | None) -> None:
        if upload:
            Path(upload).unlink(missing_ok=True)

    def check_store(self) -> CheckPublic:
        """:meth:`Index.check`, which waits for any running build to finish."""
        return CheckPublic.model_validate(self.index.check())

    def wait(self, job_id: str, *, timeout: float = 600.0, poll: float = 0.1) -> Job:
        """Block until a job is done or failed (for the CLI and tests)."""
        deadline = time.monotonic() + timeout
        while True:
            job = self.store.get(job_id)
            if job.status in ("done", "failed") or time.monotonic() > deadline:
                return job
            time.sleep(poll)


class _ProgressTracker:
    """Turns the indexer's progress events into a job's progress JSON, written at a bounded rate."""

    def __init__(self, store: JobStore, job_id: str) -> None:
        self.store = store
        self.job_id = job_id
        self.stage = "starting"
        self.stages: dict[str, dict[str, int]] = {}
        self.summarizer_calls = 0
        self.cache_hits = 0
        self._written = 0.0

    def __call__(self, ev: ProgressEvent) -> None:
        changed = ev.stage != self.stage
        self.stage = ev.stage
        self.stages[ev.stage] = {"done": ev.done, "total": ev.total}
        self.summarizer_calls = max(self.summarizer_calls, ev.summarizer_calls)
        self.cache_hits = max(self.cache_hits, ev.cache_hits)
        now = time.monotonic()
        if changed or now - self._written >= _PROGRESS_EVERY:
            self._written = now
            # progress is advisory; the ingest must not fail for it
            with contextlib.suppress(CatalogUnavailableError):
                self.store.set_progress(self.job_id, self.snapshot().model_dump())

    def snapshot(self) -> JobProgressPublic:
        summarize = self.stages.get("summarize", {})
        current = self.stages.get(self.stage, {})
        if self.stage == "done" and self.stages:
            # A finished job has no counts of its own: it reports its last stage, completed.
            last = list(self.stages.values())[-1]
            current = {"done": last.get("total", 0), "total": last.get("total", 0)}
        return JobProgressPublic.model_validate(
            {
                "stage": self.stage,
                "done": current.get("done", 0),
                "total": current.get("total", 0),
                "nodes_done": summarize.get("done", 0),
                "nodes_total": summarize.get("total", 0),
                "summarizer_calls": self.summarizer_calls,
                "cache_hits": self.cache_hits,
                "stages": self.stages,
            }
        )
