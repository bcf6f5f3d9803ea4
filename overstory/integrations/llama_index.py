"""A LlamaIndex retriever over Overstory: ``OverstoryRetriever(source)``.

Each result is a ``NodeWithScore`` whose ``TextNode`` holds the passage or summary text and
the metadata of :func:`overstory.integrations.results.metadata_of`; a language model sees the
label, source, heading path and pages beside the text, so a summary is never taken for a quote.

Needs ``llama-index-core`` (``pip install 'overstory[llama-index]'``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from overstory.integrations.results import METADATA_KEYS, PROMPT_KEYS, metadata_of
from overstory.integrations.source import QuerySource

try:
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "overstory.integrations.llama_index needs llama-index-core: "
        "pip install 'overstory[llama-index]'"
    ) from exc

_HIDDEN_FROM_LLM = [key for key in METADATA_KEYS if key not in PROMPT_KEYS]


class OverstoryRetriever(BaseRetriever):
    """Overstory's labelled passages and summaries as LlamaIndex nodes.

    Args:
        source: An :class:`~overstory.integrations.source.HttpSource` (the HTTP API) or a
            :class:`~overstory.integrations.source.LocalSource` (an index in this process).
        k: Results per query (default: the service's, 5).
        kinds: Only ``passage`` or ``summary`` results (default: both).
        documents: Only these doc_ids.
        expand: Give every summary its best supporting passages (``metadata["support"]``).
    """

    def __init__(
        self,
        source: QuerySource,
        *,
        k: int | None = None,
        kinds: Sequence[str] | None = None,
        documents: Sequence[str] | None = None,
        expand: bool = False,
        **kwargs: Any,
    ) -> None:
        self.source = source
        self.k = k
        self.kinds = list(kinds) if kinds is not None else None
        self.documents = list(documents) if documents is not None else None
        self.expand = expand
        super().__init__(**kwargs)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
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
