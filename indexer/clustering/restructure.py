"""Cluster levels inside one document's tree, where headings do not give enough structure.

Wherever a node (the document node of a headingless document, or any heading node) holds more
direct passages than the threshold, those passages are replaced by ``cluster`` nodes, top-down:
the passages are split into about ``branching`` clusters, and any cluster still holding more than
the threshold is split again. Passages keep their order inside a cluster; clusters are ordered by
their first passage and take the place of the passages among the node's children.

Stability across revisions (``indexer/clustering/reuse.py``): when the served build of the
document clustered the same node and few of its passages changed (``reuse_max_change``), its
clusters are kept and this revision's passages placed in them, so an edit changes only the
clusters on the edited passage's path; their titles are recomputed, every other cluster keeps its
title, hash and summary. Otherwise the node is re-clustered from scratch. Either way a cluster
covering exactly the passages of a previous one keeps that one's title. The clusters being built
and their tree nodes are in ``indexer/clustering/groups.py``.

Deterministic: fixed seeds, identical passages clustered once (by hash), single-threaded numeric
libraries (OpenMP reductions in k-means otherwise depend on thread timing).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from indexer.clustering.base import Clusterer, branching_bounds, silhouette
from indexer.clustering.contiguous import contiguous_labels
from indexer.clustering.groups import Group, Work, make_work, place_clusters
from indexer.clustering.labels import cluster_titles
from indexer.clustering.reuse import (
    NodeKey,
    PreviousCluster,
    carried_titles,
    keyed_nodes,
    previous_clusters,
    reuse_groups,
)
from indexer.tree import TreeNode, assign_ordinals

if TYPE_CHECKING:
    from indexer.store.catalog import Catalog

log = logging.getLogger(__name__)

# A split that leaves more than this share of the passages in one part makes too little progress
# (near-duplicates): the part is then cut into contiguous runs instead, which bounds the depth.
_MAX_SHARE = 0.9

# Below this silhouette the clusters are noise (near-duplicates differing in a number, random
# vectors: 0.000-0.003 measured), and k-means then peels off one passage at a time, making deep
# chains of tiny clusters; real topical structure measured 0.02-0.18 (benchmarks/bench_cluster.py).
_MIN_SILHOUETTE = 0.01


class ClusterRestructure:
    """The ingest hook: adds cluster levels to a tree in place (see the module docstring)."""

    def __init__(
        self,
        clusterer: Clusterer,
        *,
        threshold: int = 24,
        branching: int = 8,
        reuse_max_change: float = 0.2,
        seed: int = 0,
        catalog: Catalog | None = None,
    ) -> None:
        self.clusterer = clusterer
        self.threshold = max(2, threshold)
        self.branching = max(2, branching)
        self.reuse_max_change = reuse_max_change
        self.seed = seed
        self.catalog = catalog
        # What the last call did per restructured node: "clustered" or "reused" (benchmarks).
        self.last: list[dict[str, Any]] = []

    def __call__(self, tree: TreeNode, vectors: Mapping[str, np.ndarray], doc_id: str) -> None:
        """Restructure ``tree`` using the served build of ``doc_id`` (if any) for stability."""
        previous: dict[NodeKey, list[PreviousCluster]] = {}
        if self.catalog is not None and any(self._too_flat(n) for _, n in keyed_nodes(tree)):
            previous = previous_clusters(self.catalog, doc_id)
        self.restructure(tree, vectors, previous=previous)

    def _too_flat(self, node: TreeNode) -> bool:
        return sum(1 for c in node.children if c.is_passage) > self.threshold

    def restructure(
        self,
        tree: TreeNode,
        vectors: Mapping[str, np.ndarray],
        *,
        previous: Mapping[NodeKey, list[PreviousCluster]] | None = None,
    ) -> None:
        """Add cluster levels under every node with too many direct passages, then renumber.

        Args:
            tree: The document tree; passages must carry their ``hash``.
            vectors: Unit vector of each passage hash.
            previous: Clusters of the previous build by node key (see :func:`previous_clusters`).
        """
        from threadpoolctl import threadpool_limits

        self.last = []
        targets = [(key, node) for key, node in keyed_nodes(tree) if self._too_flat(node)]
        with threadpool_limits(limits=1):
            for key, node in targets:
                self._restructure_node(node, vectors, (previous or {}).get(key))
        assign_ordinals(tree)

    # one node -----------------------------------------------------------------------------
    def _restructure_node(
        self,
        node: TreeNode,
        vectors: Mapping[str, np.ndarray],
        prev: list[PreviousCluster] | None,
    ) -> None:
        passages = [c for c in node.children if c.is_passage]
        work = make_work(passages, vectors)
        groups = reuse_groups(prev, work, max_change=self.reuse_max_change) if prev else None
        self.last.append(
            {
                "heading_path": list(node.heading_path),
                "passages": len(passages),
                "mode": "clustered" if groups is None else "reused",
            }
        )
        if groups is None:
            groups = self._split(list(range(len(passages))), work)
        groups = self._tidy(groups, work)
        self._title(groups, work, prev or [])
        place_clusters(node, groups, passages)

    def _split(self, positions: list[int], work: Work) -> list[Group]:
        """Groups for ``positions`` (ascending), recursively until each holds few enough."""
        out = []
        for part in self._partition(positions, work):
            if len(part) > self.threshold:
                out.append(Group(children=self._split(part, work)))
            else:
                out.append(Group(members=part))
        return out

    def _partition(self, positions: list[int], work: Work) -> list[list[int]]:
        """At least two non-empty parts of ``positions``, each ascending, ordered by first."""
        rows: dict[int, int] = {}
        for i in positions:
            rows.setdefault(work.row_of[i], len(rows))
        unique = list(rows)
        labels = np.arange(len(unique))
        if len(unique) >= 3:
            try:
                labels = self.clusterer.cluster(
                    work.x[unique], target_branching=self.branching, seed=self.seed
                )
            except (ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
                # A numerical failure must not fail the build: neighbours are grouped instead.
                log.warning(
                    "%s clustering failed (%s); grouping neighbours", self.clusterer.name, exc
                )
                labels = np.zeros(len(unique), dtype=np.int64)
        parts: dict[int, list[int]] = {}
        for i in positions:
            parts.setdefault(int(labels[rows[work.row_of[i]]]), []).append(i)
        out = list(parts.values())
        if (
            len(out) < 2
            or max(len(p) for p in out) > _MAX_SHARE * len(positions)
            or (
                len(unique) >= 3
                and silhouette(work.x[unique], labels, seed=self.seed) < _MIN_SILHOUETTE
            )
        ):
            lo, hi = branching_bounds(self.branching)
            runs = contiguous_labels(len(positions), min(max(self.branching, lo), hi))
            by_run: dict[int, list[int]] = {}
            for i, run in zip(positions, runs.tolist(), strict=True):
                by_run.setdefault(run, []).append(i)
            out = list(by_run.values())
        return out

    def _tidy(self, groups: list[Group], work: Work) -> list[Group]:
        """Drop empty clusters, collapse single-child ones, split oversized leaves, sort."""

        def fix(g: Group) -> list[Group]:
            if g.children:
                kids = [k for c in g.children for k in fix(c)]
                if len(kids) <= 1:
                    return kids
                g.children = sorted(kids, key=Group.first)
                return [g]
            g.members.sort()
            if not g.members:
                return []
            if len(g.members) > self.threshold:
                g.children = self._split(g.members, work)
                g.members = []
            return [g]

        out = [k for g in groups for k in fix(g)]
        while len(out) == 1 and out[0].children:
            out = out[0].children
        return sorted(out, key=Group.first)

    def _title(self, groups: list[Group], work: Work, prev: list[PreviousCluster]) -> None:
        """Titles: a previous cluster's when the passages are the same, else top c-TF-IDF terms."""
        carried = carried_titles(prev)

        def label(siblings: list[Group]) -> None:
            for g in siblings:
                key = tuple(sorted(work.passages[i].hash for i in g.positions()))
                g.title = carried.get(key)
            if any(g.title is None for g in siblings):
                counts = []
                for g in siblings:
                    c: Counter[str] = Counter()
                    for i in g.positions():
                        c.update(work.terms(i))
                    counts.append(c)
                fallbacks = [work.passages[g.first()].text or "" for g in siblings]
                for g, title in zip(
                    siblings, cluster_titles(counts, fallbacks=fallbacks), strict=True
                ):
                    if g.title is None:
                        g.title = title
            for g in siblings:
                if g.children:
                    label(g.children)

        label(groups)
