"""Query over HTTP: ``POST /v1/query`` returns the same JSON as ``overstory query --json``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from api.models import errors
from indexer.errors import ConfigError
from retriever.retriever import Retriever

router = APIRouter(prefix="/v1", tags=["query"])


def get_retriever(request: Request) -> Retriever:
    """The service's retriever (built by the app factory over its index)."""
    retriever: Retriever | None = getattr(request.app.state, "retriever", None)
    if retriever is None:
        raise ConfigError("this service has no retriever")
    return retriever


RetrieverDep = Annotated[Retriever, Depends(get_retriever)]


class QueryRequestBody(BaseModel):
    """A question; only ``query`` is required. Limits: settings ``max_query_chars``, ``max_k``."""

    query: str = Field(description="The question or search text.")
    k: int = Field(5, description="Number of results (1 to the setting `max_k`).")
    documents: list[str] | None = Field(
        None, description="Search only these doc_ids (default: every document)."
    )
    kinds: list[Literal["passage", "summary"]] | None = Field(
        None, description="Return only these kinds (default: both)."
    )
    expand: bool = Field(
        False, description="Give every summary hit its 3 best supporting passages (`support`)."
    )


class CoversPublic(BaseModel):
    """The passages a summary covers."""

    passages: int = Field(description="Number of passages below the summarized node.")
    first: str | None = Field(description="node_id of the first passage covered.")
    last: str | None = Field(description="node_id of the last passage covered.")
    ids: list[str] | None = Field(None, description="A cluster's passages, listed.")


class QueryResultPublic(BaseModel):
    """One result: a quote (passage) or a summary, with its provenance."""

    rank: int | None = Field(description="1 = best; null for a supporting passage.")
    node_id: str
    kind: Literal["passage", "summary"]
    level: Literal["passage", "section", "chapter", "document", "cluster"]
    score: float = Field(description="The ranker's score; compare within one response only.")
    text: str = Field(description="A passage's text, or the summary.")
    doc_id: str
    source: str
    revision: str = Field(description="The served revision the node belongs to.")
    heading_path: list[str]
    char_start: int = Field(description="Start of the node in the revision's extracted text.")
    char_end: int
    pages: list[int] | None = Field(description="First and last page; null without pages.")
    covers: CoversPublic | None = Field(description="What a summary covers; null for a passage.")
    label: str = Field(description="`quote`, or what the summary summarizes, with pages.")
    summarizer: str | None = Field(description="backend/model@prompt of a summary.")
    review: str | None = Field(description="Audit state of a summary, when reviewed.")
    support: list[QueryResultPublic] | None = Field(
        None, description="With `expand`: a summary's best supporting passages."
    )


class QueryResponse(BaseModel):
    """Results best first, from the latest complete revision of each document."""

    query: str
    results: list[QueryResultPublic]


@router.post(
    "/query",
    response_model=QueryResponse,
    response_model_exclude_unset=True,
    summary="Search passages and summaries",
    responses=errors(404, 422),
)
def post_query(body: QueryRequestBody, retriever: RetrieverDep) -> dict[str, Any]:
    """Dense and BM25 candidates over passages and summaries, fused and reranked. Every result
    is labelled (`quote` or `summary of …`) and carries its document, revision, heading path,
    character span and pages."""
    request = retriever.request(
        body.query,
        k=body.k,
        documents=body.documents,
        kinds=body.kinds,
        expand=body.expand,
    )
    return retriever.query(request)
