"""Change questions: routed away from retrieval and answered by comparing revisions.

``route`` decides (explicit weighted cues), ``comparison`` answers from the diff, ``when`` reads
dates and revision hashes, ``scope`` the document, part and value, ``summary`` writes the
change summary.
"""

from __future__ import annotations

from indexer.store.catalog import Catalog
from indexer.summarizers import Summarizer
from retriever.answers import QueryAnswer
from retriever.changes.comparison import ChangeQuestion, compare
from retriever.changes.route import Routing, route

__all__ = ["ChangeQuestion", "Routing", "answer", "compare", "route"]


def answer(
    catalog: Catalog,
    question: str,
    *,
    routing: Routing,
    documents: tuple[str, ...] | None,
    summarizer: Summarizer | None,
) -> QueryAnswer:
    """The answer of a query routed to the comparison (``POST /v1/query``)."""
    comparisons = compare(
        catalog,
        ChangeQuestion(question=question, documents=documents, summarizer=summarizer),
    )
    return QueryAnswer(
        query=question,
        kind="comparison",
        route=routing.reading(),
        comparisons=comparisons,
        results=[],
    )
