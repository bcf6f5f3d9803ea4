"""A query request and its validation: every bad request becomes a clear 4xx error."""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexer.errors import InvalidRequestError

KINDS = ("passage", "summary")
# Control characters other than tab, newline and carriage return: a query holding them is binary.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@dataclass(frozen=True)
class QueryLimits:
    """Bounds on a request (settings ``max_query_chars`` and ``max_k``)."""

    max_chars: int = 2000
    max_k: int = 100


@dataclass(frozen=True)
class QueryRequest:
    """A validated query.

    Attributes:
        query: The question, stripped.
        k: Number of results.
        documents: Restrict to these ``doc_id``s (None: every document).
        kinds: ``passage`` and/or ``summary``.
        expand: Give every summary hit its best supporting passages.
    """

    query: str
    k: int = 5
    documents: tuple[str, ...] | None = None
    kinds: frozenset[str] = frozenset(KINDS)
    expand: bool = False

    @staticmethod
    def create(
        query: object,
        *,
        k: object = 5,
        documents: object = None,
        kinds: object = None,
        expand: object = False,
        limits: QueryLimits | None = None,
    ) -> QueryRequest:
        """Validate raw values (from JSON or CLI flags) into a request.

        Raises:
            InvalidRequestError: The query is empty, too long or binary; ``k`` is out of range;
                ``documents`` or ``kinds`` are malformed.
        """
        limits = limits or QueryLimits()
        if not isinstance(query, str):
            raise InvalidRequestError("query must be a string", detail={"field": "query"})
        text = query.strip()
        if not text:
            raise InvalidRequestError("query is empty", detail={"field": "query"})
        if len(text) > limits.max_chars:
            raise InvalidRequestError(
                f"query is {len(text):,} characters long; the limit is {limits.max_chars:,}"
                " (setting max_query_chars)",
                detail={"field": "query", "length": len(text), "limit": limits.max_chars},
            )
        if _CONTROL.search(text) or not _encodable(text):
            raise InvalidRequestError(
                "query contains control characters or invalid text (binary data?)",
                detail={"field": "query"},
            )
        if isinstance(k, bool) or not isinstance(k, int):
            raise InvalidRequestError("k must be an integer", detail={"field": "k"})
        if not 1 <= k <= limits.max_k:
            raise InvalidRequestError(
                f"k must be between 1 and {limits.max_k} (setting max_k), not {k}",
                detail={"field": "k", "value": k, "limit": limits.max_k},
            )
        return QueryRequest(
            query=text,
            k=k,
            documents=_documents(documents),
            kinds=_kinds(kinds),
            expand=bool(expand),
        )


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates
        return False
    return True


def _documents(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple) or not all(isinstance(d, str) for d in value):
        raise InvalidRequestError(
            "documents must be a list of doc_ids", detail={"field": "documents"}
        )
    if not value:
        raise InvalidRequestError(
            "documents is empty: omit it to search every document", detail={"field": "documents"}
        )
    return tuple(dict.fromkeys(value))


def _kinds(value: object) -> frozenset[str]:
    if value is None:
        return frozenset(KINDS)
    if not isinstance(value, list | tuple) or not value:
        raise InvalidRequestError(
            "kinds must be a non-empty list of 'passage' and/or 'summary'",
            detail={"field": "kinds"},
        )
    unknown = [v for v in value if v not in KINDS]
    if unknown:
        raise InvalidRequestError(
            f"unknown kind {unknown[0]!r}: use 'passage' and/or 'summary'",
            detail={"field": "kinds"},
        )
    return frozenset(value)
