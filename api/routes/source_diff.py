"""``GET /v1/nodes/{node_id}/source-diff``: what changed in a node's source since its review."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from api.deps import AuditorDep, IndexDep
from api.models import errors
from api.service.audit import ReviewStatus
from indexer.source_diff import source_diff

router = APIRouter(prefix="/v1", tags=["audit"])


class DiffOpPublic(BaseModel):
    """One run of the diff: text both sources share, or only the reviewed or current one has."""

    op: Literal["equal", "removed", "added"] = Field(
        description="`equal`: in both; `removed`: only in the reviewed source; `added`: only in "
        "the current one. `equal` and `added` runs joined give the current source exactly."
    )
    text: str


class ComparedReviewPublic(BaseModel):
    """The review whose source is compared."""

    review_id: int
    status: ReviewStatus
    reviewer: str
    reviewed_at: float
    corrected_text: str | None = Field(description="The expert's summary, if corrected.")


class WordCountsPublic(BaseModel):
    """Words only in the current source (`added`) and only in the reviewed one (`removed`)."""

    added: int
    removed: int


class SourceDiffPublic(BaseModel):
    """``GET /v1/nodes/{node_id}/source-diff``."""

    node_id: str
    doc_id: str
    revision: str | None = Field(description="The revision of the node compared.")
    status: Literal["changed", "unchanged", "not_reviewed", "pruned"] = Field(
        description="`changed`: the source differs from the reviewed one (a stale review); "
        "`unchanged`: it is the one reviewed; `not_reviewed`: no review to compare with; "
        "`pruned`: the revision reviewed is no longer kept, so nothing can be compared."
    )
    message: str = Field(description="The status for people.")
    review: ComparedReviewPublic | None = Field(
        description="The latest review of the node (for a stale node, the one of the old source)."
    )
    reviewed_node_id: str | None = Field(
        description="The node the review was made on, in the build of that time."
    )
    reviewed_revision: str | None = Field(
        description="The revision reviewed; null when it was pruned."
    )
    words: WordCountsPublic
    ops: list[DiffOpPublic] = Field(
        description="From the reviewed source to the current one, sentence by sentence and word "
        "by word; empty unless `changed`."
    )


@router.get(
    "/nodes/{node_id}/source-diff",
    response_model=SourceDiffPublic,
    responses=errors(401, 403, 404, 422),
    summary="What changed in a node's source since its review",
)
async def get_source_diff(node_id: str, index: IndexDep, _: AuditorDep) -> SourceDiffPublic:
    """The source below the node against the source its latest review judged (the node in the
    build of the review), word by word; 422 for a passage (passages are not reviewed)."""
    result = await run_in_threadpool(source_diff, index.catalog, node_id)
    return SourceDiffPublic.model_validate(result.to_json())
