"""A LangChain retriever over Overstory: ``OverstoryRetriever(source=…)``.

Each result is a ``Document`` whose ``page_content`` is the passage or summary text and whose
``metadata`` is :func:`overstory.integrations.results.metadata_of` (kind, label, level,
heading path, pages, covers, revision, …); ``id`` is the node id. ``invoke(q, k=2)`` asks for
two results. With ``mode="context"`` the documents are the pieces of the budgeted context of
``POST /v1/context`` (``budget`` tokens), in its order, with
:func:`overstory.integrations.results.context_metadata`. ``ainvoke`` waits without blocking the
event loop (see :mod:`.source`); it takes ``k`` and ``budget`` as ``invoke`` does.

Needs ``langchain-core`` (``pip install 'overstory[langchain]'``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from overstory.integrations.results import context_metadata, metadata_of
from overstory.integrations.source import ContextOptions

if TYPE_CHECKING:
    from api.routes.context import ContextResponse

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForRetrieverRun,
        CallbackManagerForRetrieverRun,
    )
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
    ``documents`` and ``expand``, as in ``POST /v1/query``; ``mode`` (``results``, or
    ``context``: the pieces of a context of ``budget`` tokens counted with ``tokenizer``).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    source: Any
    k: int | None = None
    kinds: list[str] | None = None
    documents: list[str] | None = None
    expand: bool = False
    mode: Literal["results", "context"] = "results"
    budget: int = 1000
    tokenizer: str = "minilm"

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        budget: int | None = None,
    ) -> list[Document]:
        if self.mode == "context":
            return self._pieces(self.source.context(query, self._options(budget)))
        return self._documents(self.source.query(query, **self._query_options(k)))

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        budget: int | None = None,
    ) -> list[Document]:
        if self.mode == "context":
            return self._pieces(await self.source.acontext(query, self._options(budget)))
        return self._documents(await self.source.aquery(query, **self._query_options(k)))

    def _query_options(self, k: int | None) -> dict[str, Any]:
        return {
            "k": k if k is not None else self.k,
            "kinds": self.kinds,
            "documents": self.documents,
            "expand": self.expand,
        }

    def _options(self, budget: int | None) -> ContextOptions:
        docs = tuple(self.documents) if self.documents is not None else None
        return ContextOptions(
            budget=budget or self.budget, tokenizer=self.tokenizer, documents=docs
        )

    @staticmethod
    def _documents(result: dict[str, Any]) -> list[Document]:
        return [
            Document(id=r["node_id"], page_content=r["text"], metadata=metadata_of(r))
            for r in result["results"]
        ]

    @staticmethod
    def _pieces(context: ContextResponse) -> list[Document]:
        return [
            Document(id="+".join(p.node_ids), page_content=p.text, metadata=context_metadata(p))
            for p in context.pieces
        ]
