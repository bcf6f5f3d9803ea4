"""Revisions: a document's kept revisions, and the documents that changed since a date."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from api.deps import IndexDep, ReaderDep
from api.models import errors
from api.routes.documents import DocIdPath
from indexer.doc_ids import normalize_doc_id
from indexer.revisions import changes_since, list_revisions

router = APIRouter(prefix="/v1", tags=["revisions"])


class RevisionPublic(BaseModel):
    """One kept revision of a document."""

    doc_id: str
    revision: str = Field(description="The revision's content hash.")
    build_id: int
    ingested_at: float | None = Field(description="When it was published (epoch seconds).")
    source: str
    served: bool = Field(description="True for the revision queries read.")
    sections: int = Field(description="Chapters and sections.")
    passages: int
    summaries: int
    previous: str | None = Field(description="The revision it is compared with in `changes`.")
    changes: str = Field(description="What changed since `previous`, in one line.")
    change_counts: dict[str, int]
    pinned: str | None = Field(
        description="Why retention keeps it beyond `keep_revisions` (`correction`, "
        "`open review`), or null."
    )


class RevisionsPublic(BaseModel):
    """``GET /v1/documents/{doc_id}/revisions``."""

    doc_id: str
    revisions: list[RevisionPublic] = Field(description="Oldest first.")


class ChangedRevisionPublic(BaseModel):
    """A revision ingested in the range."""

    revision: str
    ingested_at: float | None
    previous: str | None
    changes: str


class ChangedDocumentPublic(BaseModel):
    """A document with new revisions in the range."""

    doc_id: str
    source: str
    served: str | None = Field(description="The served revision.")
    revisions: list[ChangedRevisionPublic]


class ChangesPublic(BaseModel):
    """``GET /v1/changes``."""

    since: str
    documents: list[ChangedDocumentPublic]


@router.get(
    "/documents/{doc_id:path}/revisions",
    response_model=RevisionsPublic,
    responses=errors(401, 403, 404, 422),
    summary="A document's kept revisions",
)
async def document_revisions(doc_id: DocIdPath, index: IndexDep, _: ReaderDep) -> RevisionsPublic:
    """Each kept revision: hash, when ingested, source, counts of sections, passages and
    summaries, and what changed since the revision before it, in one line."""
    doc_id = normalize_doc_id(doc_id)
    found = await run_in_threadpool(list_revisions, index.catalog, doc_id)
    return RevisionsPublic.model_validate(
        {"doc_id": doc_id, "revisions": [r.to_json() for r in found]}
    )


@router.get(
    "/changes",
    response_model=ChangesPublic,
    responses=errors(401, 403, 422),
    summary="Documents with new revisions since a date",
)
async def changes(
    index: IndexDep,
    _: ReaderDep,
    since: Annotated[
        datetime, Query(description="ISO date or date-time (UTC unless it says otherwise).")
    ],
) -> ChangesPublic:
    """Every document with a revision ingested since `since`, with each such revision's
    one-line change."""
    when = since if since.tzinfo else since.replace(tzinfo=UTC)
    found = await run_in_threadpool(changes_since, index.catalog, when.timestamp())
    return ChangesPublic.model_validate({"since": when.isoformat(), "documents": found})
