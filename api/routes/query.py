"""Query over HTTP: ``POST /v1/query`` returns the same JSON as ``overstory query --json``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from api.deps import json_body, json_body_schema
from api.models import SentencePublic, errors
from api.routes.documents import QuotePublic, SectionChangePublic
from indexer.errors import ConfigError
from retriever.request import QueryRequest
from retriever.retriever import Retriever

router = APIRouter(prefix="/v1", tags=["query"])


def get_retriever(request: Request) -> Retriever:
    """The service's retriever (built by the app factory over its index)."""
    retriever: Retriever | None = getattr(request.app.state, "retriever", None)
    if retriever is None:
        raise ConfigError("this service has no retriever")
    return retriever


RetrieverDep = Annotated[Retriever, Depends(get_retriever)]


async def query_request(request: Request, retriever: RetrieverDep) -> QueryRequest:
    """The body, validated by the retriever's request model (the store's query limits)."""
    return await json_body(request, retriever.request_model)


QueryBody = Annotated[QueryRequest, Depends(query_request)]


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
    sentences: list[SentencePublic] | None = Field(
        description="A summary's sentences, each with the source spans it rests on; null for "
        "a passage."
    )


class IntentPublic(BaseModel):
    """How the query was read: what it asks for, with the probability of each reading."""

    label: Literal["passage", "section", "document"] = Field(
        description="`passage`: a specific fact; `section`: a chapter or section as a whole; "
        "`document`: the whole document."
    )
    score: float = Field(description="Probability of `label`.")
    scores: dict[str, float] = Field(description="Probability of each reading (sum 1).")
    source: Literal["estimated", "request"] = Field(
        description="`estimated` by the intent model, or forced by the request's `intent`."
    )


class RoutePublic(BaseModel):
    """Why the query went where it went."""

    route: Literal["comparison", "retrieval"]
    score: float = Field(description="Sum of the weights of the change cues that fired.")
    threshold: float = Field(description="The score from which a question is about change.")
    rules: list[str] = Field(description="The change cues that fired.")
    source: Literal["rule", "request"] = Field(
        description="`rule`: decided by the cues; `request`: forced by the request's `route`."
    )


class RevisionRefPublic(BaseModel):
    """One of the two revisions compared."""

    revision: str
    ingested_at: float | None = Field(description="When it was published (epoch seconds).")
    ingested: str | None = Field(description="The same, ISO 8601 in UTC.")


class AnchorPublic(BaseModel):
    """What in the question chose the revisions."""

    since: str | None = Field(description="The date read from the question, or null.")
    revisions: list[str] = Field(description="Revision hash prefixes named in the question.")
    from_words: str | None = Field(description="The words that gave the date or revisions.")


class ScopePublic(BaseModel):
    """The part of the document compared."""

    level: str = Field(description="`document`, `chapter` or `section`.")
    heading_path: list[str]
    named: str | None = Field(description="The heading the question named, or null.")


class ValuePublic(BaseModel):
    """A question about a specific value."""

    terms: list[str] = Field(description="The words of the value asked about (stemmed).")
    changed: bool = Field(description="True when changed sentences hold the value.")
    unchanged: list[QuotePublic] = Field(
        description="When it did not change: the passages holding it, quoted."
    )


class ChangeSummaryPublic(BaseModel):
    """One paragraph on what changed, by the configured summarizer."""

    label: str = Field(description="`change summary of …`.")
    text: str | None
    summarizer: str | None
    cached: bool
    error: str | None = None


class ComparisonPublic(BaseModel):
    """A change question answered for one document."""

    model_config = ConfigDict(populate_by_name=True)

    doc_id: str
    change_summary: ChangeSummaryPublic | None = Field(
        description="Null when the request set `change_summary` to false."
    )
    from_: RevisionRefPublic = Field(alias="from", serialization_alias="from")
    to: RevisionRefPublic
    anchor: AnchorPublic
    scope: ScopePublic
    value: ValuePublic | None
    counts: dict[str, int]
    changes: list[SectionChangePublic] = Field(description="The changes in scope.")
    note: str | None


class QueryResponse(BaseModel):
    """Results best first, from the latest complete revision of each document; or, for a
    question about change, the comparisons of revisions that answer it."""

    query: str
    kind: Literal["retrieval", "comparison"] | None = Field(
        None, description="`comparison`: answered from the diff (`comparisons`)."
    )
    route: RoutePublic | None = None
    intent: IntentPublic | None = Field(
        None, description="How the query was read; it weighs passages and summaries by level."
    )
    comparisons: list[ComparisonPublic] | None = Field(
        None, description="With `kind: comparison`: one per document the question is about."
    )
    results: list[QueryResultPublic]


@router.post(
    "/query",
    response_model=QueryResponse,
    response_model_exclude_unset=True,
    summary="Search passages and summaries",
    responses=errors(404, 410, 422),
    openapi_extra=json_body_schema(QueryRequest),
)
def post_query(body: QueryBody, retriever: RetrieverDep) -> dict[str, Any]:
    """Dense and BM25 candidates over passages and summaries, fused and reranked. Every result
    is labelled (`quote` or `summary of …`) and carries its document, revision, heading path,
    character span and pages. Limits: settings `max_query_chars` and `max_k`.

    A question about change ("what changed in the pump manual since March?") is answered from
    the comparison of two revisions instead (`kind: comparison`); `route` says why, and the
    request's `route` forces either way."""
    return retriever.query(body)
