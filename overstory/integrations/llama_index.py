"""A LlamaIndex retriever over Overstory: ``OverstoryRetriever(source)``.

Each result is a ``NodeWithScore`` whose ``TextNode`` holds the passage or summary text and
the metadata of :func:`overstory.integrations.results.metadata_of`; a language model sees the
label, source, heading path and pages beside the text, so a summary is never taken for a quote.

With ``mode="context"`` the nodes are the pieces of the budgeted context of ``POST /v1/context``
(``budget`` tokens), in its order: the model sees each piece's citation number, label and place
(:func:`overstory.integrations.results.context_metadata`), the provenance stays hidden from it.

Needs ``llama-index-core`` (``pip install 'overstory[llama-index]'``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from overstory.integrations.results import (
    CONTEXT_KEYS,
    CONTEXT_PROMPT_KEYS,
    METADATA_KEYS,
    PROMPT_KEYS,
    context_metadata,
    metadata_of,
)
from overstory.integrations.source import ContextOptions, QuerySource

try:
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "overstory.integrations.llama_index needs llama-index-core: "
        "pip install 'overstory[llama-index]'"
    ) from exc

if TYPE_CHECKING:
    from api.routes.context import ContextPiecePublic

_HIDDEN_FROM_LLM = [key for key in METADATA_KEYS if key not in PROMPT_KEYS]
_CONTEXT_HIDDEN = [key for key in CONTEXT_KEYS if key not in CONTEXT_PROMPT_KEYS]


class OverstoryRetriever(BaseRetriever):
    """Overstory's labelled passages and summaries as LlamaIndex nodes.

    Args:
        source: An :class:`~overstory.integrations.source.HttpSource` (the HTTP API) or a
            :class:`~overstory.integrations.source.LocalSource` (an index in this process).
        k: Results per query (default: the service's, 5).
        kinds: Only ``passage`` or ``summary`` results (default: both).
        documents: Only these doc_ids.
        expand: Give every summary its best supporting passages (``metadata["support"]``).
        mode: ``results`` (the ranked results), or ``context`` (the pieces of a budgeted
            context, in its order; ``k``, ``kinds`` and ``expand`` do not apply).
        budget: The context's token budget, counted with ``tokenizer``.
    """

    def __init__(
        self,
        source: QuerySource,
        *,
        k: int | None = None,
        kinds: Sequence[str] | None = None,
        documents: Sequence[str] | None = None,
        expand: bool = False,
        mode: Literal["results", "context"] = "results",
        budget: int = 1000,
        tokenizer: str = "minilm",
        **kwargs: Any,
    ) -> None:
        self.source = source
        self.k = k
        self.kinds = list(kinds) if kinds is not None else None
        self.documents = list(documents) if documents is not None else None
        self.expand = expand
        self.mode = mode
        self.context_options = ContextOptions(
            budget=budget,
            tokenizer=tokenizer,
            documents=tuple(self.documents) if self.documents is not None else None,
        )
        super().__init__(**kwargs)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        if self.mode == "context":
            context = self.source.context(query_bundle.query_str, self.context_options)
            return [self._piece(p) for p in context.pieces]
        result = self.source.query(
            query_bundle.query_str,
            k=self.k,
            kinds=self.kinds,
            documents=self.documents,
            expand=self.expand,
        )
        return [self._node(r) for r in result["results"]]

    @staticmethod
    def _node(result: dict[str, Any]) -> NodeWithScore:
        node = TextNode(
            id_=result["node_id"],
            text=result["text"],
            metadata=metadata_of(result),
            excluded_llm_metadata_keys=list(_HIDDEN_FROM_LLM),
            excluded_embed_metadata_keys=list(METADATA_KEYS),
        )
        return NodeWithScore(node=node, score=float(result["score"]))

    @staticmethod
    def _piece(piece: ContextPiecePublic) -> NodeWithScore:
        node = TextNode(
            text=piece.text,
            metadata=context_metadata(piece),
            excluded_llm_metadata_keys=list(_CONTEXT_HIDDEN),
            excluded_embed_metadata_keys=list(CONTEXT_KEYS),
        )
        return NodeWithScore(node=node, score=None)
