"""The retriever: a reranked mix of summaries and passages, each labelled and traceable.

``Retriever(index).query(request)`` is what ``overstory query`` and ``POST /v1/query`` call; it
returns a :class:`~retriever.answers.QueryAnswer` (``to_json()`` is the response body);
``retriever.evaluation`` scores it against a questions file (``overstory eval``).
"""

from __future__ import annotations

from indexer.index import Index
from indexer.settings import Settings
from retriever.answers import Hit, QueryAnswer
from retriever.request import QueryRequest
from retriever.retriever import Pipeline, Retriever


def open_retriever(settings: Settings) -> Retriever:
    """A retriever over the store named by the settings."""
    return Retriever(Index(settings))


__all__ = ["Hit", "Pipeline", "QueryAnswer", "QueryRequest", "Retriever", "open_retriever"]
