"""A document's outline for an agent: its headings (or clusters) with one-line summaries.

What an agent reads before it chooses where to look: node ids, levels, titles, pages, how many
passages each node covers, its label and the first sentence of its summary; never passage text.
The tree is cut at ``depth`` levels below the node it starts from, and a cut node says how many
inner children it hides, so the agent can ask for that node's outline next.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from indexer.doc_ids import normalize_doc_id
from indexer.errors import InvalidRequestError, NotFoundError
from indexer.store.backends import Row
from indexer.store.catalog import Catalog
from indexer.store.records import NodeRecord, ServedDocument
from indexer.summarizers.sentences import split_sentences
from indexer.treeview import tree_json
from retriever.answers import Answer
from retriever.results import label

MAX_DEPTH = 10
ONE_LINE_CHARS = 200
CONTENTS_PREFIX = "Contents: "


class OutlineNode(Answer):
    """A heading or cluster of the outline: what it is and what it covers, no passage text."""

    node_id: str
    level: str = Field(description="document, chapter, section or cluster.")
    title: str | None
    heading_path: list[str]
    pages: list[int | None] | None = Field(description="First and last page; null without pages.")
    passages: int = Field(description="Passages the node covers.")
    label: str | None = Field(description="What the node's summary summarizes, with pages.")
    summary: str | None = Field(description="The first sentence of its summary.")
    review: str | None = Field(default=None, description="Audit state, when reviewed.")
    children: list[OutlineNode] = Field(description="Inner children, down to `depth`.")
    hidden_children: int | None = Field(
        default=None, description="At the cut: inner children not shown (outline this node)."
    )


class Outline(Answer):
    """A document's outline from one node, ``depth`` levels down."""

    doc_id: str
    source: str
    revision: str
    depth: int
    outline: OutlineNode


def node_label(row: Row, source: str) -> str:
    """The label a query result of this node carries (``quote`` or ``summary of …``)."""
    return label(NodeRecord.from_row(row), _document(row["doc_id"], source))


def _document(doc_id: str, source: str) -> ServedDocument:
    """What :func:`retriever.results.label` reads of a document (its source), as a record."""
    return ServedDocument(doc_id=doc_id, source=source, build_id=0, revision="", summarizer="")


def one_line(summary: str | None) -> str | None:
    """The first sentence of a summary, cut to :data:`ONE_LINE_CHARS` characters."""
    if not summary:
        return None
    # A summary may open with a line listing the children ("Contents: 1 Safety; …"): the
    # outline shows the children already, so the line says what the node itself holds.
    lines = [ln for ln in summary.strip().splitlines() if ln.strip()]
    while len(lines) > 1 and lines[0].startswith(CONTENTS_PREFIX):
        lines.pop(0)
    summary = " ".join(lines)
    sentences = split_sentences(summary)
    first = (sentences[0] if sentences else summary).strip()
    if len(first) > ONE_LINE_CHARS:
        first = first[: ONE_LINE_CHARS - 1].rstrip() + "…"
    return first


def outline(
    catalog: Catalog, doc_id: str, *, depth: int = 3, node_id: str | None = None
) -> Outline:
    """The served tree of ``doc_id`` without passages, ``depth`` levels below its start.

    Args:
        catalog: The store.
        doc_id: The document.
        depth: Levels shown below the starting node (0: the node alone; at most 10).
        node_id: Start from this node of the served tree (default: the document's root).

    Raises:
        NotFoundError: No such document, or ``node_id`` is not in its served tree.
        InvalidRequestError: ``depth`` out of range.
    """
    if not 0 <= depth <= MAX_DEPTH:
        raise InvalidRequestError(f"depth must be between 0 and {MAX_DEPTH}, not {depth}")
    doc_id = normalize_doc_id(doc_id)
    row = catalog.require_document(doc_id)
    build_id = int(row["current_build"])
    tree = tree_json(catalog, build_id)
    start = tree if node_id is None else _find(tree, node_id)
    if start is None:
        raise NotFoundError(
            f"node {node_id!r} is not in the served tree of {doc_id!r}",
            detail={"node_id": node_id, "doc_id": doc_id},
        )
    doc = _document(doc_id, row["source"])
    labels = {
        r.node_id: label(r, doc) for r in catalog.nodes.records_of_build(build_id, inner=True)
    }
    return Outline(
        doc_id=doc_id,
        source=row["source"],
        revision=row["revision"],
        depth=depth,
        outline=OutlineNode.model_validate(_prune(start, depth, labels)),
    )


def _find(node: dict[str, Any], node_id: str) -> dict[str, Any] | None:
    if node["node_id"] == node_id:
        return node
    for child in node["children"]:
        found = _find(child, node_id)
        if found is not None:
            return found
    return None


def _prune(node: dict[str, Any], depth: int, labels: dict[str, str]) -> dict[str, Any]:
    inner = [c for c in node["children"] if c["level"] != "passage"]
    out: dict[str, Any] = {
        "node_id": node["node_id"],
        "level": node["level"],
        "title": node["title"],
        "heading_path": node["heading_path"],
        "pages": node["pages"],
        "passages": (node.get("covers") or {}).get("passages", 0),
        "label": labels.get(node["node_id"]),
        "summary": one_line(node["summary"]),
    }
    if node.get("review"):
        out["review"] = node["review"]["status"]
    if depth > 0:
        out["children"] = [_prune(c, depth - 1, labels) for c in inner]
    else:
        out["children"] = []
        out["hidden_children"] = len(inner)
    return out
