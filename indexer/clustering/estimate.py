"""Cluster levels as the dry run estimates them: from passage counts and settings alone.

The real build clusters by passage vectors, which a dry run must not compute (embedding every
passage of a large manual takes as long as the build's own embedding). How many clusters a node
gets, and how deep they go, follows from its passage count, ``cluster_threshold`` and
``cluster_branching``: so the estimate groups neighbouring passages into the same number of
clusters, recursively, and the summary pass counts their summaries like any other node's.
Their cache keys differ from the real clusters', so a changed document's cluster summaries are
counted as computed (an upper bound), never as reused.
"""

from __future__ import annotations

from indexer.clustering.base import branching_bounds
from indexer.clustering.contiguous import contiguous_labels
from indexer.clustering.groups import Group, place_clusters
from indexer.tree import TreeNode, assign_ordinals


def estimate_cluster_levels(tree: TreeNode, *, threshold: int, branching: int) -> None:
    """Give every node with more than ``threshold`` direct passages contiguous cluster levels."""
    threshold, branching = max(2, threshold), max(2, branching)
    lo, hi = branching_bounds(branching)
    k = min(max(branching, lo), hi)

    def split(positions: list[int]) -> list[Group]:
        runs: dict[int, list[int]] = {}
        for i, run in zip(positions, contiguous_labels(len(positions), k).tolist(), strict=True):
            runs.setdefault(run, []).append(i)
        return [
            Group(children=split(part)) if len(part) > threshold else Group(members=part)
            for part in runs.values()
        ]

    for node in [n for n in tree.walk() if not n.is_passage]:
        passages = [c for c in node.children if c.is_passage]
        if len(passages) <= threshold:
            continue
        place_clusters(node, split(list(range(len(passages)))), passages)
    assign_ordinals(tree)
