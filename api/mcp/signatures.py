"""The tools' signatures as the MCP client sees them: names, typed arguments, descriptions.

The SDK builds each tool's input schema from these signatures; the work is done by
:class:`api.mcp.tools.Tools`, whose request models check the values (the store's limits).
"""

from __future__ import annotations

import inspect
import logging
import uuid
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from api.mcp.compact import SearchAnswer
from api.mcp.tools import Tools
from api.routes.context import ContextResponse
from api.routes.documents import DocumentsPublic
from api.routes.select import SelectResponse
from api.service.audit_models import QueuePublic
from api.service.changes import ScopedDiff
from api.service.node_models import NodeDetailPublic
from api.service.outline import Outline
from indexer.errors import OverstoryError

DocId = Annotated[str, Field(description="A document's doc_id, as list_documents gives it.")]
DocIds = Annotated[
    list[str] | None, Field(description="Only these doc_ids (default: every document).")
]
NodeId = Annotated[str, Field(description="A node_id from outline, search or read_node.")]
Kind = Literal["passage", "summary"]
log = logging.getLogger("overstory.mcp")


class ToolFunctions:
    """One bound method per tool; each returns a tool result or a tool error, never raises."""

    def __init__(
        self,
        tools: Tools,
        *,
        on_error: Callable[[OverstoryError], CallToolResult],
        on_result: Callable[[BaseModel], CallToolResult],
    ) -> None:
        self.tools = tools
        self.on_error = on_error
        self.on_result = on_result

    def _call(self, fn: Callable[..., BaseModel], *args: Any, **kwargs: Any) -> CallToolResult:
        try:
            return self.on_result(fn(*args, **kwargs))
        except OverstoryError as exc:
            return self.on_error(exc)
        except Exception:  # as the REST service: logged once, answered with an incident
            incident = uuid.uuid4().hex[:12]
            log.exception("unexpected error (incident %s) in tool %s", incident, fn.__name__)
            return self.on_error(
                OverstoryError(
                    f"internal error (incident {incident}); see the server log",
                    detail={"incident": incident},
                )
            )

    def search(
        self,
        query: Annotated[str, Field(description="The question or search text.")],
        k: Annotated[int | None, Field(description="Number of results (default 5).")] = None,
        kinds: Annotated[
            list[Kind] | None, Field(description="Only these kinds (default: both).")
        ] = None,
        documents: DocIds = None,
        expand: Annotated[
            bool | None, Field(description="Give every summary hit its best passages.")
        ] = None,
        intent: Annotated[
            Literal["auto", "passage", "section", "document"] | None,
            Field(description="What the query asks for (default: estimated)."),
        ] = None,
        detail: Annotated[
            bool,
            Field(
                description="Every field of the REST answer: scores, character ranges, what a "
                "summary covers, its sentences and sources, how the query was read and routed."
            ),
        ] = False,
    ) -> Annotated[CallToolResult, SearchAnswer]:
        """Search passages and summaries. Each result is labelled: a passage is a quote
        (`label: "quote"`, with `pages`); a summary says what it summarizes and its pages
        (`label: "summary of 5 Maintenance, pp. 37–58"`). Compact: text, label, node and
        document ids, revision, heading path and pages; `detail` adds the rest."""
        return self._call(
            self.tools.search,
            query,
            k=k,
            kinds=kinds,
            documents=documents,
            expand=expand,
            intent=intent,
            detail=detail,
        )

    def context(
        self,
        query: Annotated[str, Field(description="The question.")],
        budget: Annotated[
            int | None, Field(description="Tokens the context may take (default 1000).")
        ] = None,
        tokenizer: Annotated[
            Literal["minilm", "cl100k_base", "words"] | None,
            Field(description="How tokens are counted (default: minilm)."),
        ] = None,
        documents: DocIds = None,
        intent: Annotated[
            Literal["auto", "passage", "section", "document"] | None,
            Field(description="What the question asks for (default: estimated)."),
        ] = None,
    ) -> Annotated[CallToolResult, ContextResponse]:
        """The context to answer a question from, within a token budget: prompt-ready `text`
        whose pieces are numbered `[1]`, `[2]`… (quotes verbatim, summaries labelled as such)
        and the same `pieces` with their provenance (doc_id, node ids, character ranges, pages)."""
        return self._call(
            self.tools.context,
            query,
            budget=budget,
            tokenizer=tokenizer,
            documents=documents,
            intent=intent,
        )

    def outline(
        self,
        doc_id: DocId,
        depth: Annotated[int, Field(description="Levels below the start (0–10).")] = 3,
        node_id: Annotated[
            str | None, Field(description="Start at this node (default: the root).")
        ] = None,
    ) -> Annotated[CallToolResult, Outline]:
        """A document's table of contents: headings (or clusters) with node ids, pages, the
        number of passages covered and a one-line summary each; no passage text. A node cut
        by `depth` gives `hidden_children`: outline it with `node_id` to see them."""
        return self._call(self.tools.outline, doc_id, depth=depth, node_id=node_id)

    def read_node(
        self,
        node_id: NodeId,
        passages_limit: Annotated[
            int, Field(description="Passages to return (0 for the summary alone; ≤ 1000).")
        ] = 10,
        passages_offset: Annotated[int, Field(description="Passages to skip.")] = 0,
    ) -> Annotated[CallToolResult, NodeDetailPublic]:
        """One node: its summary (labelled with what it summarizes and its pages), its
        parent and children, and a page of the passages it covers, with their pages."""
        return self._call(
            self.tools.read_node,
            node_id,
            passages_limit=passages_limit,
            passages_offset=passages_offset,
        )

    def what_changed(
        self,
        doc_id: DocId,
        from_revision: Annotated[
            str | None, Field(description="Older revision (default: the one before the newest).")
        ] = None,
        to_revision: Annotated[
            str | None, Field(description="Newer revision (default: the newest).")
        ] = None,
        section: Annotated[
            str | None, Field(description="Only changes under headings containing this text.")
        ] = None,
    ) -> Annotated[CallToolResult, ScopedDiff]:
        """What changed between two revisions of a document: sections added, removed, moved
        and changed, with the changed sentences."""
        return self._call(
            self.tools.what_changed,
            doc_id,
            from_revision=from_revision,
            to_revision=to_revision,
            section=section,
        )

    def select(
        self,
        k: Annotated[int | None, Field(description="Clusters wanted (default: by budget).")] = None,
        documents: DocIds = None,
        under: Annotated[str | None, Field(description="Only passages under this node_id.")] = None,
        per_cluster: Annotated[
            int | None, Field(description="Representatives per cluster.")
        ] = None,
        method: Annotated[
            Literal["centroid", "rank", "balanced"] | None, Field(description="How to pick.")
        ] = None,
        budget_tokens: Annotated[
            int | None, Field(description="Token budget that sets K when k is absent.")
        ] = None,
    ) -> Annotated[CallToolResult, SelectResponse]:
        """Without a query: K clusters that cover the documents, each with its size, a label
        and representative passages (quotes with pages)."""
        return self._call(
            self.tools.select,
            k=k,
            documents=documents,
            under=under,
            per_cluster=per_cluster,
            method=method,
            budget_tokens=budget_tokens,
        )

    def list_documents(self) -> Annotated[CallToolResult, DocumentsPublic]:
        """The indexed documents: doc_id, source, served revision and counts."""
        return self._call(self.tools.list_documents)

    def audit_queue(
        self,
        documents: DocIds = None,
        status: Annotated[
            Literal["pending", "approved", "corrected", "rejected", "all"],
            Field(description="Which reviews to list."),
        ] = "pending",
        limit: Annotated[int, Field(description="Items per page (1–500).")] = 20,
        offset: Annotated[int, Field(description="Items to skip.")] = 0,
    ) -> Annotated[CallToolResult, QueuePublic]:
        """Auditors only: the summaries to review, most urgent first, with lint flags."""
        return self._call(
            self.tools.audit_queue, documents=documents, status=status, limit=limit, offset=offset
        )


TOOL_NAMES = (
    "search",
    "context",
    "outline",
    "read_node",
    "what_changed",
    "select",
    "list_documents",
    "audit_queue",
)


def functions(
    tools: Tools,
    *,
    on_error: Callable[[OverstoryError], CallToolResult],
    on_result: Callable[[BaseModel], CallToolResult],
) -> dict[str, Callable[..., CallToolResult]]:
    """Each tool's bound method, by tool name."""
    bound = ToolFunctions(tools, on_error=on_error, on_result=on_result)
    return {name: getattr(bound, name) for name in TOOL_NAMES}


def argument_names(fn: Callable[..., Any]) -> frozenset[str]:
    """The argument names a tool takes."""
    return frozenset(inspect.signature(fn).parameters)
