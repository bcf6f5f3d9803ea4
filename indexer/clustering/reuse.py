"""Cluster reuse across revisions: the previous build's clusters and this revision's place in them.

When the served build clustered the same node and few of its passages changed, its clusters are
kept: removed passages leave them, a passage edited in place takes its predecessor's cluster, a
moved one returns to its old cluster, and a new one joins the nearest cluster (descending the
cluster tree by centroid). A cluster covering exactly the passages of a previous one keeps that
one's title.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Any

import numpy as np

from indexer.clustering.groups import Group, Work
from indexer.tree import CLUSTER, PASSAGE, TreeNode

if TYPE_CHECKING:
    from indexer.store.catalog import Catalog

# (level, heading path, occurrence): how a heading node is recognised in the previous build.
NodeKey = tuple[str, tuple[str, ...], int]


@dataclass
class PreviousCluster:
    """A cluster node of the served build, read back from the catalog."""

    title: str
    hashes: list[str] = field(default_factory=list)
    children: list[PreviousCluster] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)  # char_start of each of ``hashes``

    def all_hashes(self) -> list[str]:
        """Hashes of every passage below, in tree order."""
        out = list(self.hashes)
        for c in self.children:
            out.extend(c.all_hashes())
        return out

    def walk(self) -> Iterator[PreviousCluster]:
        """This cluster and its sub-clusters, pre-order."""
        yield self
        for c in self.children:
            yield from c.walk()


# reading the previous clusters ------------------------------------------------------------
def keyed_nodes(tree: TreeNode) -> Iterator[tuple[NodeKey, TreeNode]]:
    """Heading and document nodes, pre-order, with the key that finds them in another build."""
    seen: Counter[tuple[str, tuple[str, ...]]] = Counter()
    for node in tree.walk():
        if node.level in (PASSAGE, CLUSTER):
            continue
        base = (node.level, tuple(node.heading_path))
        yield (*base, seen[base]), node
        seen[base] += 1


def previous_clusters(catalog: Catalog, doc_id: str) -> dict[NodeKey, list[PreviousCluster]]:
    """The cluster trees of the document's served build, by the key of the node holding them."""
    build_id = catalog.current_build(doc_id)
    if build_id is None:
        return {}
    rows = catalog.nodes_of_build(build_id)
    children: dict[str, list[Any]] = defaultdict(list)
    for r in rows:
        if r["parent_id"] is not None:
            children[r["parent_id"]].append(r)

    def convert(r: Any) -> PreviousCluster:
        below = children[r["node_id"]]
        return PreviousCluster(
            title=r["title"] or "",
            hashes=[c["hash"] for c in below if c["level"] == PASSAGE],
            children=[convert(c) for c in below if c["level"] == CLUSTER],
            starts=[c["char_start"] for c in below if c["level"] == PASSAGE],
        )

    out: dict[NodeKey, list[PreviousCluster]] = {}
    seen: Counter[tuple[str, tuple[str, ...]]] = Counter()
    for r in rows:
        if r["level"] in (PASSAGE, CLUSTER):
            continue
        base = (r["level"], tuple(json.loads(r["heading_path"])))
        key: NodeKey = (*base, seen[base])
        seen[base] += 1
        clusters = [convert(c) for c in children[r["node_id"]] if c["level"] == CLUSTER]
        if clusters:
            out[key] = clusters
    return out


def clusters_of(tree: TreeNode) -> dict[NodeKey, list[PreviousCluster]]:
    """The cluster trees of an in-memory (restructured) tree, as :func:`previous_clusters` gives.

    Lets a caller holding the last tree (a benchmark, a test) re-ingest without a catalog.
    """

    def convert(node: TreeNode) -> PreviousCluster:
        return PreviousCluster(
            title=node.title or "",
            hashes=[c.hash for c in node.children if c.is_passage],
            children=[convert(c) for c in node.children if c.level == CLUSTER],
            starts=[c.char_start for c in node.children if c.is_passage],
        )

    out: dict[NodeKey, list[PreviousCluster]] = {}
    for key, node in keyed_nodes(tree):
        clusters = [convert(c) for c in node.children if c.level == CLUSTER]
        if clusters:
            out[key] = clusters
    return out


def carried_titles(prev: list[PreviousCluster]) -> dict[tuple[str, ...], str]:
    """Title of every previous cluster by the sorted hashes of the passages it covers."""
    carried: dict[tuple[str, ...], str] = {}
    for top in prev:
        for pc in top.walk():
            carried.setdefault(tuple(sorted(pc.all_hashes())), pc.title)
    return carried


# placing this revision's passages ----------------------------------------------------------
def reuse_groups(
    prev: list[PreviousCluster], work: Work, *, max_change: float
) -> list[Group] | None:
    """The previous clusters with this revision's passages, or None when too much changed.

    The old and new passage sequences are aligned (difflib): an unchanged passage stays in
    its cluster, a passage edited in place takes its predecessor's, a moved one goes back to
    its old cluster, and only a truly new passage joins the nearest cluster by centroid.

    Args:
        prev: The previous build's clusters of this node.
        work: This revision's passages and vectors.
        max_change: Largest share of changed passages (removed plus added) that keeps them.
    """
    old: list[tuple[int, str, Group]] = []

    def rebuild(pc: PreviousCluster) -> Group:
        if pc.children:
            return Group(children=[rebuild(c) for c in pc.children])
        g = Group()
        starts = pc.starts or [0] * len(pc.hashes)
        old.extend((start, h, g) for start, h in zip(starts, pc.hashes, strict=True))
        return g

    groups = [rebuild(pc) for pc in prev]
    old.sort(key=lambda t: t[0])
    old_hashes = [h for _, h, _ in old]
    new_hashes = [p.hash for p in work.passages]
    matcher = SequenceMatcher(None, old_hashes, new_hashes, autojunk=False)
    successors: list[tuple[int, Group]] = []
    deleted: dict[str, list[Group]] = defaultdict(list)
    inserted: list[int] = []
    changed = 0
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                old[i][2].members.append(j)
            continue
        changed += (i2 - i1) + (j2 - j1)
        paired = min(i2 - i1, j2 - j1) if op == "replace" else 0
        successors.extend((j1 + t, old[i1 + t][2]) for t in range(paired))
        for i in range(i1 + paired, i2):
            deleted[old[i][1]].append(old[i][2])
        inserted.extend(range(j1 + paired, j2))
    if changed > max_change * max(len(new_hashes), len(old_hashes)):
        return None
    newcomers = []
    for j in inserted:
        moved_from = deleted.get(new_hashes[j])
        if moved_from:
            successors.append((j, moved_from.pop(0)))
        else:
            newcomers.append(j)
    # Centroids come from the unchanged passages only (placed above), before any newcomer.
    insert_nearest(groups, newcomers, work)
    for j, g in successors:
        g.members.append(j)
    return groups


def insert_nearest(groups: list[Group], added: list[int], work: Work) -> None:
    """Put each new passage in the leaf reached by following the nearest centroids.

    Centroids are taken from the kept passages only, before any insertion, so the result
    does not depend on the order of the new passages.
    """
    centre: dict[int, np.ndarray | None] = {}

    def measure(g: Group) -> np.ndarray:
        if g.children:
            total = sum((measure(c) for c in g.children), np.zeros(work.x.shape[1]))
        else:
            rows = [work.row_of[i] for i in g.members]
            total = work.x[rows].sum(axis=0) if rows else np.zeros(work.x.shape[1])
        norm = float(np.linalg.norm(total))
        centre[id(g)] = total / norm if norm > 0 else None
        return total

    if not added:
        return
    for g in groups:
        measure(g)
    for i in added:
        v = work.x[work.row_of[i]]
        level = groups
        while True:
            best, best_score = level[0], -np.inf
            for g in level:
                c = centre[id(g)]
                score = float(c @ v) if c is not None else -np.inf
                if score > best_score:
                    best, best_score = g, score
            if not best.children:
                best.members.append(i)
                break
            level = best.children
