"""The chatbot's context over HTTP: ``POST /v1/context`` (a question and a token budget in, the
best mix of summaries and passages that fits out, as prompt text and as labelled pieces)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from api.deps import json_body, json_body_schema
from api.models import errors
from api.routes.query import RetrieverDep
from retriever.context import Context, ContextRequest, build_context

router = APIRouter(prefix="/v1", tags=["query"])


async def context_request(request: Request, retriever: RetrieverDep) -> ContextRequest:
    """The body, validated by :class:`ContextRequest` with the store's query limits."""
    return await json_body(request, ContextRequest.with_limits(retriever.limits))


ContextBody = Annotated[ContextRequest, Depends(context_request)]


class CharRangePublic(BaseModel):
    """A character range of the revision's extracted text."""

    model_config = ConfigDict(from_attributes=True)

    char_start: int
    char_end: int


class ContextPiecePublic(BaseModel):
    """One piece of the context: a quote or a summary, with what its citation number stands for."""

    model_config = ConfigDict(from_attributes=True)

    citation: int = Field(description="The number `text` cites the piece by (`[1]`).")
    kind: Literal["quote", "summary"] = Field(
        description="`quote`: passage text, verbatim (overlapping passages merged); `summary`: "
        "a summary's sentences (those a quote in the context already holds are left out)."
    )
    label: str = Field(description="`quote` or what the summary summarizes, with pages.")
    doc_id: str
    source: str
    revision: str = Field(description="The served revision the text comes from.")
    heading_path: list[str]
    node_ids: list[str] = Field(description="The passages quoted, or the summarized node.")
    ranges: list[CharRangePublic] = Field(description="Where the text lies in the revision.")
    pages: list[int] | None = Field(description="First and last page; null without pages.")
    text: str
    tokens: int = Field(
        description="Tokens of the piece in `text`, its header line included (and its "
        "document's line, for the first piece of a document)."
    )


class ContextResponse(BaseModel):
    """A context that fits the budget, in reading order within each document."""

    model_config = ConfigDict(from_attributes=True)

    query: str
    intent: Literal["passage", "section", "document"] = Field(
        description="How the question was read."
    )
    mode: Literal["global", "specific"] = Field(
        description="`global`: the summary of the part asked about, then passages under it; "
        "`specific`: the best passages, with the passage after the best ones."
    )
    budget: int
    tokenizer: Literal["minilm", "cl100k_base", "words"]
    tokens: int = Field(description="Tokens of `text` (at most `budget`).")
    text: str = Field(
        description="Prompt-ready: each document's line `# source › headings`, then each of its "
        "pieces as `[n] label | headings below that line` and its text."
    )
    pieces: list[ContextPiecePublic]

    @staticmethod
    def of(context: Context) -> ContextResponse:
        """The response of a built context."""
        return ContextResponse.model_validate(context)


@router.post(
    "/context",
    response_model=ContextResponse,
    summary="A budgeted context for a prompt",
    responses=errors(404, 422),
    openapi_extra=json_body_schema(ContextRequest),
)
def post_context(body: ContextBody, retriever: RetrieverDep) -> ContextResponse:
    """A question and a token budget in; out the context that fills the budget best: for a
    question about a section or document its summary and then the passages under it, for a
    specific question the passages. No text twice, reading order within each document, every
    piece labelled and numbered for citation. Tokens: the request's `tokenizer` (default
    `minilm`, the bundled embedding model's)."""
    return ContextResponse.of(build_context(retriever, body))
