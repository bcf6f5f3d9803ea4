"""Turning an in-memory tree into catalog rows."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from indexer.tree import CLUSTER, TreeNode


def node_rows(
    tree: TreeNode,
    *,
    build_id: int,
    doc_id: str,
    summary_keys: dict[str, str],
    passage_vector: Callable[[TreeNode], str],
    summary_vector: Callable[[TreeNode], str | None],
) -> Iterator[tuple[Any, ...]]:
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
        yield (
            node.node_id,
            build_id,
            doc_id,
            parent,
            node.ordinal,
            node.level,
            node.title,
            json.dumps(node.heading_path),
            node.char_start,
            node.char_end,
            pages[0],
            pages[1],
            node.hash,
            node.text,
            summary_keys.get(node.node_id),
            vid,
            n_passages,
            first,
            last,
            covers,
        )
