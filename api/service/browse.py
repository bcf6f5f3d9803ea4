"""Browsing one node: itself, its parent, its children and the passages it covers."""

from __future__ import annotations

import json
from typing import Any

from api.service.node_models import NodeDetailPublic
from api.service.outline import node_label
from indexer.errors import NotFoundError
from indexer.reviews import review_states
from indexer.store.backends import Row
from indexer.store.catalog import Catalog
from indexer.treeview import node_json


def node_detail(
    catalog: Catalog, node_id: str, *, passages_limit: int = 100, passages_offset: int = 0
) -> NodeDetailPublic:
    """A node with its parent, children and covered passages (one page of them).

    A node of a superseded revision is still shown, with ``served`` false.

    Raises:
        NotFoundError: No such node.
    """
    row = catalog.node(node_id)
    if row is None:
        raise NotFoundError(f"no node {node_id!r}", detail={"node_id": node_id})
    build = catalog.builds([row["build_id"]]).get(row["build_id"])
    parent = catalog.node(row["parent_id"]) if row["parent_id"] else None
    children = catalog.nodes.children(node_id, row["build_id"])
    passages, total = _covered(catalog, row, limit=passages_limit, offset=passages_offset)
    rows = [row, *([parent] if parent else []), *children, *passages]
    summaries = catalog.summary_rows([r["summary_key"] for r in rows if r["summary_key"]])
    reviews = review_states(catalog, rows)
    document = catalog.document(row["doc_id"])
    source = document["source"] if document is not None else row["doc_id"]

    def view(r: Row) -> dict[str, Any]:
        return {
            **node_json(
                r, summaries.get(r["summary_key"]), reviews.get(r["node_id"]), catalog=catalog
            ),
            "doc_id": r["doc_id"],
            "parent_id": r["parent_id"],
            "label": node_label(r, source),
        }

    node = view(row)
    node["revision"] = build.revision if build else None
    node["served"] = bool(build and build.served)
    detail = {
        "node": node,
        "parent": view(parent) if parent else None,
        "children": [view(c) for c in children],
        "passages": [view(p) for p in passages],
        "passages_total": total,
    }
    return NodeDetailPublic.model_validate(detail)


def _covered(catalog: Catalog, row: Row, *, limit: int, offset: int) -> tuple[list[Row], int]:
    """The passages below a node (a cluster's listed ones), in document order."""
    if row["level"] == "passage":
        return [], 0
    if row["covers"]:
        ids: list[str] = json.loads(row["covers"])
        page = ids[offset : offset + limit]
        found = {r["node_id"]: r for r in catalog.nodes.rows(page)}
        return [found[i] for i in page if i in found], len(ids)
    if not row["first_passage"]:
        return [], 0
    return catalog.nodes.passages_between(
        row["build_id"], row["first_passage"], row["last_passage"], limit=limit, offset=offset
    )
