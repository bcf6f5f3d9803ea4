"""Superseded jobs: an upload older than the revision now served is never published.

Every publish or deletion of a document is recorded with the time its content was submitted (a
job's upload time, inherited by retries; the start of a CLI ingest or deletion). A job submitted
before the last such time is *superseded*: publishing it would roll the document back, so it is
failed with code ``superseded`` and its upload discarded. A job whose content is the revision
served now is not superseded (running it again changes nothing).
"""

from __future__ import annotations

from pathlib import Path

from indexer.errors import JobSupersededError
from indexer.hashing import hash_bytes
from indexer.store.catalog import Catalog
from indexer.store.jobs import Job


def newer_publish(
    catalog: Catalog, doc_id: str, *, as_of: float, revision: str | None, job_id: str = ""
) -> JobSupersededError | None:
    """The error for content of ``revision`` submitted at ``as_of``, if something newer is served.

    Args:
        catalog: The store's catalog.
        doc_id: The document.
        as_of: When the content was submitted (seconds since the epoch).
        revision: Its revision (content hash), or None when unknown.
        job_id: The job, named in the message.
    """
    last = catalog.jobs.last_publish(doc_id)
    if last is None or last[0] <= as_of:
        return None
    served = last[1]
    if served is not None and served == revision:
        return None
    what = f"job {job_id}" if job_id else "this upload"
    if served is None:
        message = (
            f"{what} is superseded: {doc_id!r} was deleted after it was submitted; "
            "upload the file again to index it"
        )
    else:
        message = (
            f"{what} is superseded: revision {served[:12]} of {doc_id!r}, submitted later, is "
            "now served and would be rolled back; upload the file again to serve this one"
        )
    return JobSupersededError(
        message, detail={"doc_id": doc_id, "job_id": job_id or None, "served_revision": served}
    )


def job_supersession(catalog: Catalog, job: Job) -> JobSupersededError | None:
    """Why ``job`` must not publish any more, or None when it still may."""
    as_of = catalog.jobs.submitted_at(job.job_id)
    last = catalog.jobs.last_publish(job.doc_id)
    if last is None or last[0] <= as_of:
        return None
    revision = None
    if job.upload and Path(job.upload).is_file():
        revision = hash_bytes(Path(job.upload).read_bytes())
    return newer_publish(catalog, job.doc_id, as_of=as_of, revision=revision, job_id=job.job_id)


def supersede_jobs(catalog: Catalog, doc_id: str) -> list[str]:
    """Fail the document's queued and retryable jobs that its served revision supersedes.

    Returns:
        The ids of the jobs marked superseded (their uploads are deleted).
    """
    done = []
    for job in catalog.jobs.open_jobs(doc_id):
        error = job_supersession(catalog, job)
        if error is None:
            continue
        upload = catalog.jobs.supersede(job.job_id, error.to_json())
        if upload:
            Path(upload).unlink(missing_ok=True)
        done.append(job.job_id)
    return done


def record_publish(catalog: Catalog, doc_id: str, *, as_of: float) -> list[str]:
    """Record that ``doc_id`` changed (new served revision or deleted) with content of ``as_of``,
    and supersede the jobs submitted before; returns their ids."""
    row = catalog.document(doc_id)
    revision = None if row is None or row["current_build"] is None else str(row["revision"])
    catalog.jobs.record_publish(doc_id, as_of=as_of, revision=revision)
    return supersede_jobs(catalog, doc_id)
