"""Turning an in-memory tree into catalog rows."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from indexer.tree import CLUSTER, TreeNode


@dataclass(frozen=True, kw_only=True)
class NodeRow:
    """One row of ``nodes``, in the table's column order."""

    node_id: str
    build_id: int
    doc_id: str
    parent_id: str | None
    ordinal: int
    level: str
    title: str | None
    heading_path: str  # JSON
    char_start: int
    char_end: int
    page_start: int | None
    page_end: int | None
    hash: str
    text: str | None
    summary_key: str | None
    vector_id: str | None
    n_passages: int
    first_passage: str | None
    last_passage: str | None
    covers: str | None  # JSON list of passage ids (clusters only)
    sentences: str | None = None  # JSON sourced sentences of the summary, absolute spans


def node_rows(
    tree: TreeNode,
    *,
    build_id: int,
    doc_id: str,
    summary_keys: dict[str, str],
    passage_vector: Callable[[TreeNode], str],
    summary_vector: Callable[[TreeNode], str | None],
    sentences: Callable[[TreeNode], str | None] = lambda _node: None,
) -> Iterator[NodeRow]:
    """Rows for ``nodes`` in pre-order, each with its parent, provenance and vector id."""
    stack: list[tuple[TreeNode, str | None]] = [(tree, None)]
    while stack:
        node, parent = stack.pop()
        stack.extend((c, node.node_id) for c in reversed(node.children))
        pages: list[int | None] = list(node.pages) if node.pages else [None, None]
        if node.is_passage:
            vid: str | None = passage_vector(node)
            first: str | None = node.node_id
            last: str | None = node.node_id
            n_passages, covers = 1, None
        else:
            vid = summary_vector(node)
            below = node.passages()
            n_passages = len(below)
            first = below[0].node_id if below else None
            last = below[-1].node_id if below else None
            covers = json.dumps([p.node_id for p in below]) if node.level == CLUSTER else None
        yield NodeRow(
            node_id=node.node_id,
            build_id=build_id,
            doc_id=doc_id,
            parent_id=parent,
            ordinal=node.ordinal,
            level=node.level,
            title=node.title,
            heading_path=json.dumps(node.heading_path),
            char_start=node.char_start,
            char_end=node.char_end,
            page_start=pages[0],
            page_end=pages[1],
            hash=node.hash,
            text=node.text,
            summary_key=summary_keys.get(node.node_id),
            vector_id=vid,
            n_passages=n_passages,
            first_passage=first,
            last_passage=last,
            covers=covers,
            sentences=None if node.is_passage else sentences(node),
        )
