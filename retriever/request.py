"""A query request, validated once by one pydantic model: every bad request is a clear 422.

``QueryRequest`` checks what a query may be; its limits (settings ``max_query_chars`` and
``max_k``) belong to a store, so ``QueryRequest.with_limits(limits)`` is the model of one store
(``Retriever.request_model``): the CLI validates through it (``Retriever.request``) and
``POST /v1/query`` reads its body with it. Construct the model directly only with values known
to be good; raw values go through ``indexer.validation.validated``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from indexer.doc_ids import normalize_doc_id
from indexer.errors import InvalidRequestError
from indexer.settings import Settings
from indexer.validation import (
    CONTROL_CHARS,
    REQUEST_CONFIG,
    SPACE_CLASS,
    WholeNumber,
    is_binary_text,
    limit_error,
)

Kind = Literal["passage", "summary"]
Intent = Literal["auto", "passage", "section", "document"]
RouteChoice = Literal["auto", "comparison", "retrieval"]
KINDS: tuple[Kind, ...] = ("passage", "summary")
# what _check_query accepts, for the schema: no control characters, not only spaces
_QUERY_PATTERN = f"^[^{CONTROL_CHARS}]*[^{SPACE_CLASS}{CONTROL_CHARS}][^{CONTROL_CHARS}]*$"


@dataclass(frozen=True)
class QueryLimits:
    """Bounds on a request (settings ``max_query_chars`` and ``max_k``; their defaults here)."""

    max_chars: int = Settings.model_fields["max_query_chars"].default
    max_k: int = Settings.model_fields["max_k"].default


def query_schema(properties: dict[str, Any], limits: QueryLimits) -> None:
    """Document what :func:`check_query` accepts on a model's ``query`` property."""
    properties["query"].update(minLength=1, maxLength=limits.max_chars, pattern=_QUERY_PATTERN)


def _document_limits(schema: dict[str, Any], model: type[Any]) -> None:
    limits: QueryLimits = model.limits
    properties = schema["properties"]
    query_schema(properties, limits)
    properties["k"].update(minimum=1, maximum=limits.max_k)
    properties["kinds"].pop("uniqueItems", None)  # a repeated kind is taken once, not refused


class QueryRequest(BaseModel):
    """A question and how to answer it; only ``query`` is required.

    The plain class holds the default limits; ``with_limits`` gives the model of other ones.
    """

    model_config = ConfigDict(**REQUEST_CONFIG, frozen=True, json_schema_extra=_document_limits)

    limits: ClassVar[QueryLimits] = QueryLimits()

    query: str = Field(
        description="The question or search text, stripped (at most setting `max_query_chars`)."
    )
    k: WholeNumber = Field(5, description="Number of results (1 to the setting `max_k`).")
    documents: tuple[str, ...] | None = Field(
        None,
        description="Search only these doc_ids (default: every document).",
        json_schema_extra={"minItems": 1},
    )
    kinds: frozenset[Kind] = Field(
        frozenset(KINDS),
        description="Return only these kinds (default: both).",
        json_schema_extra={"default": list(KINDS), "minItems": 1},
    )
    expand: bool = Field(
        False, description="Give every summary hit its 3 best supporting passages (`support`)."
    )
    intent: Intent = Field(
        "auto", description="How the query is read; `auto`: estimated; else forced."
    )
    route: RouteChoice = Field(
        "auto",
        description="`auto`: a question about change goes to the comparison of revisions, "
        "others to retrieval (the response's `route` says why); else forced.",
    )
    change_summary: bool = Field(
        True, description="With the comparison: head each one with a change summary."
    )

    @classmethod
    def with_limits(cls, limits: QueryLimits) -> type[QueryRequest]:
        """The model that enforces ``limits`` (built once per limits)."""
        return _limited(limits)

    @field_validator("query", mode="before")
    @classmethod
    def _check_query(cls, value: object) -> str:
        return check_query(value, max_chars=cls.limits.max_chars)

    @field_validator("k")
    @classmethod
    def _check_k(cls, value: int) -> int:
        return check_k(value, max_k=cls.limits.max_k)

    @field_validator("documents", mode="before")
    @classmethod
    def _check_documents(cls, value: object) -> tuple[str, ...] | None:
        return document_ids(value)

    @field_validator("kinds", mode="before")
    @classmethod
    def _check_kinds(cls, value: object) -> frozenset[str]:
        if value is None:
            return frozenset(KINDS)
        if not isinstance(value, list | tuple | set | frozenset) or not value:
            raise PydanticCustomError(
                "kinds_type", "kinds must be a non-empty list of 'passage' and/or 'summary'"
            )
        unknown = [v for v in value if v not in KINDS]
        if unknown:
            raise PydanticCustomError(
                "kind_unknown",
                "unknown kind {kind}: use 'passage' and/or 'summary'",
                {"kind": repr(unknown[0])},
            )
        return frozenset(value)


@functools.cache
def _limited(limits: QueryLimits) -> type[QueryRequest]:
    return type("QueryRequest", (QueryRequest,), {"limits": limits, "__module__": __name__})


def check_query(value: object, *, max_chars: int) -> str:
    """``value`` stripped if it is a valid query: a string, not empty, at most ``max_chars``
    long (setting ``max_query_chars``), no control characters."""
    if not isinstance(value, str):
        raise PydanticCustomError("query_type", "query must be a string")
    text = value.strip()
    if not text:
        raise PydanticCustomError("query_empty", "query is empty")
    if len(text) > max_chars:
        raise limit_error(
            f"query is {len(text):,} characters long; the limit is {max_chars:,}"
            " (setting max_query_chars)",
            field="query",
            limit=max_chars,
            length=len(text),
        )
    if is_binary_text(text):
        raise PydanticCustomError(
            "query_binary", "query contains control characters or invalid text (binary data?)"
        )
    return text


def check_k(value: int, *, max_k: int) -> int:
    """``value`` if it is a valid ``k`` (1 to ``max_k``), else a limit error."""
    if not 1 <= value <= max_k:
        raise limit_error(
            f"k must be between 1 and {max_k} (setting max_k), not {value}",
            field="k",
            limit=max_k,
        )
    return value


def document_ids(value: object) -> tuple[str, ...] | None:
    """A ``documents`` field: None, or a non-empty list of doc_ids (repeats dropped)."""
    if value is None:
        return None
    if not isinstance(value, list | tuple) or not all(isinstance(d, str) for d in value):
        raise PydanticCustomError("documents_type", "documents must be a list of doc_ids")
    if not value:
        raise PydanticCustomError(
            "documents_empty", "documents is empty: omit it to use every document"
        )
    return tuple(dict.fromkeys(_canonical(d) for d in value))


def _canonical(doc_id: str) -> str:
    # "a//b.md" names "a/b.md", as in every other place a doc_id comes in; an id that can be
    # no document's stays as given and is answered as unknown (404)
    try:
        return normalize_doc_id(doc_id)
    except InvalidRequestError:
        return doc_id
