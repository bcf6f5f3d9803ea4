"""What the ingestion jobs answer: a job with its progress, report or error.

The response models of ``/v1/jobs`` and of a document upload (202), and the progress a running
job records (:class:`~api.service.jobs.JobRunner`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, JsonValue

JobStatusPublic = Literal["queued", "running", "done", "failed"]


class JobCreatedPublic(BaseModel):
    """A queued job (202)."""

    job_id: str
    doc_id: str
    status: JobStatusPublic


class JobErrorPublic(BaseModel):
    """Why a job failed (the canonical error fields)."""

    code: str
    message: str
    detail: JsonValue = None


def _unreported(description: str) -> Any:
    # A count the job has not reported yet is absent from the JSON, not null.
    return Field(None, description=description, exclude_if=lambda value: value is None)


class StageProgressPublic(BaseModel):
    """How far one stage of an ingest got."""

    done: int
    total: int


class JobProgressPublic(BaseModel):
    """How far a job got; a queued or starting job has only its ``stage``."""

    stage: str
    done: int | None = _unreported("Done in the current stage.")
    total: int | None = _unreported("Total of the current stage.")
    nodes_done: int | None = _unreported("Summaries written so far.")
    nodes_total: int | None = _unreported("Summaries to write.")
    summarizer_calls: int | None = _unreported("Calls to the summarizer so far.")
    cache_hits: int | None = _unreported("Summaries found in the cache.")
    stages: dict[str, StageProgressPublic] | None = _unreported(
        "Every stage seen so far: its done/total."
    )


class JobPublic(BaseModel):
    """An ingestion job."""

    job_id: str
    doc_id: str
    filename: str
    size: int = Field(description="Uploaded bytes.")
    status: JobStatusPublic
    progress: JobProgressPublic = Field(
        description="stage, done/total of the stage, nodes_done/nodes_total (summaries), "
        "summarizer_calls, cache_hits, and every stage's done/total."
    )
    report: dict[str, JsonValue] | None = Field(
        description="When done: the same JSON as `overstory ingest --json`."
    )
    error: JobErrorPublic | None
    retry_of: str | None = Field(description="The failed job this one retries.")
    retryable: bool = Field(description="Failed with its upload kept: POST …/retry runs it again.")
    attempts: int = Field(0, description="Runs of this job started so far (takeovers included).")
    worker: str | None = Field(None, description="The worker that runs (or last ran) the job.")
    created_at: float
    started_at: float | None
    finished_at: float | None


class JobsPublic(BaseModel):
    """``GET /v1/jobs``."""

    jobs: list[JobPublic]
