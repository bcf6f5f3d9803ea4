"""Ingestion jobs: progress, report, retry."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from starlette.concurrency import run_in_threadpool

from api.deps import EditorDep, RunnerDep
from api.models import errors
from api.service.actions import record_write
from api.service.job_models import JobCreatedPublic, JobPublic, JobsPublic, JobStatusPublic

router = APIRouter(prefix="/v1", tags=["jobs"])


@router.get(
    "/jobs",
    response_model=JobsPublic,
    responses=errors(401, 403, 422),
    summary="List ingestion jobs, newest first",
)
async def list_jobs(
    runner: RunnerDep,
    _: EditorDep,
    status: JobStatusPublic | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> JobsPublic:
    """Recent jobs, optionally only those of one status."""
    jobs = await run_in_threadpool(runner.store.recent, status=status, limit=limit)
    return JobsPublic(jobs=[JobPublic.model_validate(j.to_json()) for j in jobs])


@router.get(
    "/jobs/{job_id}",
    response_model=JobPublic,
    responses=errors(401, 403, 404),
    summary="One job: status, progress, report or error",
)
async def get_job(job_id: str, runner: RunnerDep, _: EditorDep) -> JobPublic:
    """Poll this until ``status`` is ``done`` or ``failed``."""
    job = await run_in_threadpool(runner.store.get, job_id)
    return JobPublic.model_validate(job.to_json())


@router.post(
    "/jobs/{job_id}/retry",
    status_code=202,
    response_model=JobCreatedPublic,
    responses=errors(401, 403, 404, 409, 429),
    summary="Run a failed job again from its kept upload",
)
async def retry_job(
    job_id: str, runner: RunnerDep, principal: EditorDep, response: Response
) -> JobCreatedPublic:
    """A failed job whose upload was kept (interrupted, backend error) runs again as a new job.

    Summaries and vectors computed before the failure are reused.
    """
    job = await run_in_threadpool(runner.retry, job_id)
    await run_in_threadpool(
        lambda: record_write(
            runner.index.catalog,
            principal,
            "document.retry",
            doc_id=job.doc_id,
            job_id=job.job_id,
            retried=job_id,
        )
    )
    response.headers["Location"] = f"/v1/jobs/{job.job_id}"
    return JobCreatedPublic(job_id=job.job_id, doc_id=job.doc_id, status=job.status)
