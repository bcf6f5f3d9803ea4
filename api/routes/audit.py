"""The audit workflow over HTTP: the queue, a review of one node's summary, the audit log."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.concurrency import run_in_threadpool

from api.deps import AuditorDep, IndexDep
from api.models import errors
from api.service.audit import MAX_QUEUE_PAGE, ReviewCreate, audit_log, queue, record_review
from api.service.audit_models import AuditLogPublic, QueuePublic, QueueStatus, ReviewResultPublic

router = APIRouter(prefix="/v1", tags=["audit"])


@router.get(
    "/audit/queue",
    response_model=QueuePublic,
    responses=errors(401, 403, 404, 422),
    summary="Summaries to audit, most urgent first",
)
async def get_queue(
    index: IndexDep,
    _: AuditorDep,
    doc_id: Annotated[list[str] | None, Query(description="Only these documents.")] = None,
    status: QueueStatus = "pending",
    limit: Annotated[int, Query(ge=1, le=MAX_QUEUE_PAGE)] = 20,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
    all_flags: Annotated[
        bool, Query(description="Also show flags below `lint_min_confidence`.")
    ] = False,
) -> QueuePublic:
    """The served summaries to audit: stale reviews first, then the likeliest lint flags,
    then top levels, then document order."""
    floor = 0.0 if all_flags else index.settings.lint_min_confidence
    return await run_in_threadpool(
        lambda: queue(
            index.catalog,
            doc_ids=doc_id,
            status=status,
            limit=limit,
            offset=offset,
            linter=index.linter,
            min_confidence=floor,
        )
    )


@router.post(
    "/nodes/{node_id}/review",
    response_model=ReviewResultPublic,
    status_code=201,
    responses=errors(401, 403, 404, 409, 422),
    summary="Approve, correct or reject a node's summary",
)
async def post_review(
    node_id: str, body: ReviewCreate, index: IndexDep, principal: AuditorDep
) -> ReviewResultPublic:
    """Record a review; a correction becomes the node's served summary and is linted."""
    return await run_in_threadpool(
        lambda: record_review(
            index.catalog,
            node_id,
            body,
            reviewer=principal.name or principal.key_id,
            key_id=principal.key_id,
            linter=index.linter,
        )
    )


@router.get(
    "/audit/log",
    response_model=AuditLogPublic,
    responses=errors(401, 403, 422),
    summary="Who reviewed or changed what, newest first",
)
async def get_log(
    index: IndexDep,
    _: AuditorDep,
    doc_id: str | None = None,
    limit: Annotated[int, Query(ge=1, le=MAX_QUEUE_PAGE)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
) -> AuditLogPublic:
    """The audit log (append-only), optionally of one document."""
    return await run_in_threadpool(
        audit_log, index.catalog, doc_id=doc_id, limit=limit, offset=offset
    )
