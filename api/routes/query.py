"""Query over HTTP: ``POST /v1/query`` returns the same JSON as ``overstory query --json``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from api.deps import json_body, json_body_schema
from api.models import errors
from indexer.errors import ConfigError
from retriever.answers import QueryAnswer
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


@router.post(
    "/query",
    response_model=QueryAnswer,
    response_model_exclude_unset=True,
    summary="Search passages and summaries",
    responses=errors(404, 410, 422),
    openapi_extra=json_body_schema(QueryRequest),
)
def post_query(body: QueryBody, retriever: RetrieverDep) -> QueryAnswer:
    """Dense and BM25 candidates over passages and summaries, fused and reranked. Every result
    is labelled (`quote` or `summary of …`) and carries its document, revision, heading path,
    character span and pages. Limits: settings `max_query_chars` and `max_k`.

    A question about change ("what changed in the pump manual since March?") is answered from
    the comparison of two revisions instead (`kind: comparison`); `route` says why, and the
    request's `route` forces either way."""
    return retriever.query(body)
