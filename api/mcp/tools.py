"""The MCP tools as plain functions over one open store (no MCP types here).

Each tool calls the service function its REST route calls and answers with the route's
response model: ``search`` is ``POST /v1/query`` (compact unless ``detail``: see
:mod:`api.mcp.compact`), ``select`` is ``POST /v1/select``, ``read_node`` is
``GET /v1/nodes/{node_id}``, ``what_changed`` is ``GET /v1/documents/{doc_id}/diff``,
``context`` is ``POST /v1/context``, ``list_documents`` is ``GET /v1/documents`` and
``audit_queue`` is ``GET /v1/audit/queue``.
``outline`` (a document's headings with one-line summaries, no passage text) has no route of
its own; it is the tree of ``GET /v1/documents/{doc_id}/tree`` cut down for an agent.

Arguments are validated by the same request models as the routes (the store's limits), so a
bad argument raises the same :class:`~indexer.errors.OverstoryError` with the same message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from api.mcp.compact import SearchAnswer
from api.routes.context import ContextResponse
from api.routes.documents import DocumentPublic, DocumentsPublic
from api.routes.select import SelectResponse
from api.service.audit_models import QueuePublic
from api.service.audit_queue import queue
from api.service.browse import node_detail
from api.service.changes import DiffPublic, what_changed
from api.service.node_models import NodeDetailPublic
from api.service.outline import Outline, outline
from api.service.wiring import Stack
from indexer.errors import InvalidRequestError
from indexer.validation import validated
from retriever.context import ContextRequest, build_context
from retriever.selection import SelectionRequest, select

# The role each tool needs, as its REST route does (roles are cumulative).
TOOL_ROLES: dict[str, str] = {
    "search": "reader",
    "context": "reader",
    "outline": "reader",
    "read_node": "reader",
    "what_changed": "reader",
    "select": "reader",
    "list_documents": "reader",
    "audit_queue": "auditor",
}
MAX_PASSAGES_PAGE = 1000


def _given(**values: Any) -> dict[str, Any]:
    """The arguments the caller gave (None: use the request model's default)."""
    return {k: v for k, v in values.items() if v is not None}


class Tools:
    """The tools of one store; every method returns its REST route's response model."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.index = stack.index
        self.retriever = stack.retriever

    def search(
        self,
        query: str,
        *,
        k: int | None = None,
        kinds: Sequence[str] | None = None,
        documents: Sequence[str] | None = None,
        expand: bool | None = None,
        intent: str | None = None,
        detail: bool = False,
    ) -> SearchAnswer:
        """``POST /v1/query``: labelled passages and summaries with provenance; compact (text,
        label, ids, heading path, pages) unless ``detail``."""
        request = self.retriever.request(
            query, **_given(k=k, kinds=kinds, documents=documents, expand=expand, intent=intent)
        )
        return SearchAnswer.of(self.retriever.query(request), detail=detail)

    def context(
        self,
        query: str,
        *,
        budget: int | None = None,
        tokenizer: str | None = None,
        documents: Sequence[str] | None = None,
        intent: str | None = None,
    ) -> ContextResponse:
        """``POST /v1/context``: the best mix that fits a token budget, as prompt text."""
        given = _given(budget=budget, tokenizer=tokenizer, intent=intent)
        if documents is not None:
            given["documents"] = list(documents)
        request = validated(
            ContextRequest.with_limits(self.retriever.limits), {"query": query, **given}
        )
        return ContextResponse.of(build_context(self.retriever, request))

    def outline(self, doc_id: str, *, depth: int = 3, node_id: str | None = None) -> Outline:
        """A document's headings with one-line summaries and node ids, no passage text."""
        return outline(self.index.catalog, doc_id, depth=depth, node_id=node_id)

    def read_node(
        self, node_id: str, *, passages_limit: int = 10, passages_offset: int = 0
    ) -> NodeDetailPublic:
        """``GET /v1/nodes/{node_id}``: the node (its summary, labelled), its parent and
        children, and one page of the passages it covers, with pages."""
        if not 0 <= passages_limit <= MAX_PASSAGES_PAGE:
            raise InvalidRequestError(
                f"passages_limit must be between 0 and {MAX_PASSAGES_PAGE}, not {passages_limit}"
            )
        if passages_offset < 0:
            raise InvalidRequestError(f"passages_offset must be 0 or more, not {passages_offset}")
        return node_detail(
            self.index.catalog,
            node_id,
            passages_limit=passages_limit,
            passages_offset=passages_offset,
        )

    def what_changed(
        self,
        doc_id: str,
        *,
        from_revision: str | None = None,
        to_revision: str | None = None,
        section: str | None = None,
    ) -> DiffPublic:
        """The comparison of two revisions (default: the newest against the one before)."""
        return what_changed(
            self.index.catalog,
            doc_id,
            from_revision=from_revision,
            to_revision=to_revision,
            section=section,
        )

    def select(
        self,
        *,
        k: int | None = None,
        documents: Sequence[str] | None = None,
        under: str | None = None,
        per_cluster: int | None = None,
        method: str | None = None,
        budget_tokens: int | None = None,
    ) -> SelectResponse:
        """``POST /v1/select``: K clusters covering the scope, with representative passages."""
        model = SelectionRequest.with_limits(max_k=self.index.settings.max_k)
        request = validated(
            model,
            _given(
                k=k,
                documents=documents,
                under=under,
                per_cluster=per_cluster,
                method=method,
                budget_tokens=budget_tokens,
            ),
        )
        result = select(self.index, request).to_dict()
        return SelectResponse.model_validate(result)

    def list_documents(self) -> DocumentsPublic:
        """``GET /v1/documents``: the served documents with their revision and counts."""
        rows = self.index.documents()
        public = DocumentsPublic(documents=[DocumentPublic.model_validate(r) for r in rows])
        return public

    def audit_queue(
        self,
        *,
        documents: Sequence[str] | None = None,
        status: str = "pending",
        limit: int = 20,
        offset: int = 0,
    ) -> QueuePublic:
        """``GET /v1/audit/queue`` (auditors): the summaries to review, most urgent first."""
        return queue(
            self.index.catalog,
            doc_ids=list(documents) if documents else None,
            status=status,
            limit=limit,
            offset=offset,
        )
