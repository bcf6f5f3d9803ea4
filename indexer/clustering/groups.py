"""Clusters while they are being built, and their conversion into ``cluster`` tree nodes.

A :class:`Group` is a cluster under construction (passage positions, or sub-clusters); a
:class:`Work` holds one node's passages with their deduplicated, normalized vectors.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from indexer.clustering.base import prepare
from indexer.clustering.labels import term_counts
from indexer.tree import CLUSTER, TreeNode


@dataclass
class Group:
    """A cluster being built: passage positions (a leaf) or sub-clusters."""

    members: list[int] = field(default_factory=list)
    children: list[Group] = field(default_factory=list)
    title: str | None = None

    def positions(self) -> list[int]:
        """Positions of every passage below, in tree order."""
        if not self.children:
            return list(self.members)
        return [i for c in self.children for i in c.positions()]

    def first(self) -> int:
        """Position of the first passage below (clusters are ordered by it)."""
        return self.members[0] if not self.children else self.children[0].first()


@dataclass
class Work:
    """One node's passages and their (deduplicated, normalized) vectors."""

    passages: list[TreeNode]
    row_of: list[int]  # passage position -> row of ``x`` (identical passages share a row)
    x: np.ndarray
    counts: dict[int, Counter[str]] = field(default_factory=dict)

    def terms(self, position: int) -> Counter[str]:
        """Term counts of the passage at ``position`` (computed once per distinct text)."""
        row = self.row_of[position]
        if row not in self.counts:
            self.counts[row] = term_counts(self.passages[position].text or "")
        return self.counts[row]


def make_work(passages: list[TreeNode], vectors: Mapping[str, np.ndarray]) -> Work:
    """The passages with one normalized row per distinct hash (a missing vector is zeros)."""
    row_of_hash: dict[str, int] = {}
    for p in passages:
        row_of_hash.setdefault(p.hash, len(row_of_hash))
    dim = next((len(v) for v in vectors.values()), 1)
    raw = np.zeros((len(row_of_hash), dim), dtype=np.float64)
    for h, row in row_of_hash.items():
        v = vectors.get(h)
        if v is not None:
            raw[row] = np.asarray(v, dtype=np.float64).reshape(-1)[:dim]
    return Work(passages, [row_of_hash[p.hash] for p in passages], prepare(raw))


def cluster_node(g: Group, parent: TreeNode, passages: list[TreeNode]) -> TreeNode:
    """The ``cluster`` node of ``g`` (recursively), spanning the passages it covers."""
    if g.children:
        kids = [cluster_node(c, parent, passages) for c in g.children]
    else:
        kids = [passages[i] for i in g.members]
    below = [passages[i] for i in g.positions()]
    pages = [p.pages for p in below if p.pages]
    return TreeNode(
        level=CLUSTER,
        title=g.title,
        heading_path=list(parent.heading_path),
        char_start=min(p.char_start for p in below),
        char_end=max(p.char_end for p in below),
        pages=[min(p[0] for p in pages), max(p[-1] for p in pages)] if pages else None,
        children=kids,
    )


def place_clusters(node: TreeNode, groups: list[Group], passages: list[TreeNode]) -> None:
    """Replace ``node``'s direct passages by the cluster nodes of ``groups``, where the first
    passage stood; its other children (subsections) keep their places."""
    clusters = [cluster_node(g, node, passages) for g in groups]
    children: list[TreeNode] = []
    for child in node.children:
        if not child.is_passage:
            children.append(child)
        elif clusters:
            children.extend(clusters)
            clusters = []
    node.children = children
