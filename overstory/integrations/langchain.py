"""A LangChain retriever over Overstory: ``OverstoryRetriever(source=…)``.

Each result is a ``Document`` whose ``page_content`` is the passage or summary text and whose
``metadata`` is :func:`overstory.integrations.results.metadata_of` (kind, label, level,
heading path, pages, covers, revision, …); ``id`` is the node id.

Needs ``langchain-core`` (``pip install 'overstory[langchain]'``).
"""

from __future__ import annotations

from typing import Any

from overstory.integrations.results import metadata_of

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from pydantic import ConfigDict
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "overstory.integrations.langchain needs langchain-core: pip install 'overstory[langchain]'"
    ) from exc


class OverstoryRetriever(BaseRetriever):
    """Overstory's labelled passages and summaries as LangChain documents.

    Fields: ``source`` (an ``HttpSource`` or ``LocalSource``), ``k``, ``kinds``,
    ``documents`` and ``expand``, as in ``POST /v1/query``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    source: Any
    k: int | None = None
    kinds: list[str] | None = None
    documents: list[str] | None = None
    expand: bool = False

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        result = self.source.query(
            query, k=self.k, kinds=self.kinds, documents=self.documents, expand=self.expand
        )
        return [
            Document(id=r["node_id"], page_content=r["text"], metadata=metadata_of(r))
            for r in result["results"]
        ]
