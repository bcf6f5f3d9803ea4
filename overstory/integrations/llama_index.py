"""A LlamaIndex retriever over Overstory: ``OverstoryRetriever(source)``.

Each result is a ``NodeWithScore`` whose ``TextNode`` holds the passage or summary text and
the metadata of :func:`overstory.integrations.results.metadata_of`; a language model sees the
label, source, heading path and pages beside the text, so a summary is never taken for a quote.
The node's id is the Overstory node id, its ``ref_doc_id`` the doc_id (``SOURCE``), its
``start_char_idx``/``end_char_idx`` the span in the document's text; among the results of one
query, a node's ``PARENT`` is the smallest summary whose span holds it, and a summary's
``CHILD`` nodes are the results it is the parent of.

``aretrieve`` waits without blocking the event loop (see :mod:`.source`).

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
    from llama_index.core.schema import (
        NodeRelationship,
        NodeWithScore,
        QueryBundle,
        RelatedNodeInfo,
        TextNode,
    )
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
        result = self.source.query(query_bundle.query_str, **self._query_options())
        return self._nodes(result["results"])

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        if self.mode == "context":
            context = await self.source.acontext(query_bundle.query_str, self.context_options)
            return [self._piece(p) for p in context.pieces]
        result = await self.source.aquery(query_bundle.query_str, **self._query_options())
        return self._nodes(result["results"])

    def _query_options(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "kinds": self.kinds,
            "documents": self.documents,
            "expand": self.expand,
        }

    @staticmethod
    def _nodes(results: list[dict[str, Any]]) -> list[NodeWithScore]:
        parents = _parents(results)
        out = []
        for result in results:
            node_id = result["node_id"]
            metadata = metadata_of(result)
            relations: dict[NodeRelationship, Any] = {
                NodeRelationship.SOURCE: RelatedNodeInfo(node_id=result["doc_id"])
            }
            if node_id in parents:
                relations[NodeRelationship.PARENT] = RelatedNodeInfo(node_id=parents[node_id])
            children = [c for c, p in parents.items() if p == node_id]
            if children:
                relations[NodeRelationship.CHILD] = [RelatedNodeInfo(node_id=c) for c in children]
            node = TextNode(
                id_=node_id,
                text=result["text"],
                metadata=metadata,
                start_char_idx=result.get("char_start"),
                end_char_idx=result.get("char_end"),
                relationships=relations,
                excluded_llm_metadata_keys=_hidden(metadata, _HIDDEN_FROM_LLM),
                excluded_embed_metadata_keys=list(METADATA_KEYS),
            )
            out.append(NodeWithScore(node=node, score=float(result["score"])))
        return out

    @staticmethod
    def _piece(piece: ContextPiecePublic) -> NodeWithScore:
        metadata = context_metadata(piece)
        node = TextNode(
            id_="+".join(piece.node_ids),
            text=piece.text,
            metadata=metadata,
            start_char_idx=piece.ranges[0].char_start if piece.ranges else None,
            end_char_idx=piece.ranges[-1].char_end if piece.ranges else None,
            relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=piece.doc_id)},
            excluded_llm_metadata_keys=_hidden(metadata, _CONTEXT_HIDDEN),
            excluded_embed_metadata_keys=list(CONTEXT_KEYS),
        )
        return NodeWithScore(node=node, score=None)


def _hidden(metadata: dict[str, Any], hidden: list[str]) -> list[str]:
    """The keys kept out of the prompt: the hidden ones, and shown ones without a value (a
    prompt should not read ``pages: None``)."""
    return [*hidden, *(k for k, v in metadata.items() if k not in hidden and v in (None, ""))]


def _parents(results: list[dict[str, Any]]) -> dict[str, str]:
    """Each result's parent among the results: the summary of the same revision with the
    smallest span holding its span (the deepest one when spans are equal)."""
    out: dict[str, str] = {}
    summaries = [r for r in results if r.get("kind") == "summary"]
    for r in results:
        holding = [s for s in summaries if _holds(s, r)]
        if holding:
            best = min(holding, key=lambda s: (_width(s), -len(s.get("heading_path") or ())))
            out[r["node_id"]] = best["node_id"]
    return out


def _width(result: dict[str, Any]) -> int:
    return int(result["char_end"]) - int(result["char_start"])


def _holds(summary: dict[str, Any], result: dict[str, Any]) -> bool:
    """True when ``summary`` lies above ``result`` in its document's tree."""
    if summary["node_id"] == result["node_id"] or summary["doc_id"] != result["doc_id"]:
        return False
    if summary.get("revision") != result.get("revision"):
        return False
    if (
        not summary["char_start"]
        <= result["char_start"]
        <= result["char_end"]
        <= summary["char_end"]
    ):
        return False
    if _width(summary) > _width(result) or result.get("kind") == "passage":
        return True
    above, below = summary.get("heading_path") or [], result.get("heading_path") or []
    return len(above) < len(below) and list(below[: len(above)]) == list(above)
