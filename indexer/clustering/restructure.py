"""Cluster levels inside one document's tree, where headings do not give enough structure.

Wherever a node (the document node of a headingless document, or any heading node) holds more
direct passages than the threshold, those passages are replaced by ``cluster`` nodes, top-down:
the passages are split into about ``branching`` clusters, and any cluster still holding more than
the threshold is split again. Passages keep their order inside a cluster; clusters are ordered by
their first passage and take the place of the passages among the node's children.

Stability across revisions: when the served build of the document clustered the same node and
few of its passages changed (``reuse_max_change``), its clusters are kept: removed passages leave
them, a passage edited in place takes its predecessor's cluster, a moved one returns to its old
cluster, and a new one joins the nearest cluster (descending the cluster tree by centroid). So an
edit changes only the clusters on the edited passage's path; their titles are recomputed, every
other cluster keeps its title, hash and summary. Otherwise the node is re-clustered from scratch.
Either way a cluster covering exactly the passages of a previous one keeps that one's title.

Deterministic: fixed seeds, identical passages clustered once (by hash), single-threaded numeric
libraries (OpenMP reductions in k-means otherwise depend on thread timing).
"""

from __future__ import annotations

import json
import logging
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Any

import numpy as np

from indexer.clustering.base import Clusterer, branching_bounds, prepare, silhouette
from indexer.clustering.contiguous import contiguous_labels
from indexer.clustering.labels import cluster_titles, term_counts
from indexer.tree import CLUSTER, PASSAGE, TreeNode, assign_ordinals

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


@dataclass
class _Group:
    """A cluster being built: passage positions (a leaf) or sub-clusters."""

    members: list[int] = field(default_factory=list)
    children: list[_Group] = field(default_factory=list)
    title: str | None = None

    def positions(self) -> list[int]:
        if not self.children:
            return list(self.members)
        return [i for c in self.children for i in c.positions()]

    def first(self) -> int:
        return self.members[0] if not self.children else self.children[0].first()


@dataclass
class _Work:
    """One node's passages and their (deduplicated, normalized) vectors."""

    passages: list[TreeNode]
    row_of: list[int]  # passage position -> row of ``x`` (identical passages share a row)
    x: np.ndarray
    counts: dict[int, Counter[str]] = field(default_factory=dict)

    def terms(self, position: int) -> Counter[str]:
        row = self.row_of[position]
        if row not in self.counts:
            self.counts[row] = term_counts(self.passages[position].text or "")
        return self.counts[row]


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
        work = _work(passages, vectors)
        groups = self._reuse(prev, work) if prev else None
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
        clusters = [_cluster_node(g, node, passages) for g in groups]
        children: list[TreeNode] = []
        for child in node.children:
            if not child.is_passage:
                children.append(child)
            elif clusters:
                children.extend(clusters)
                clusters = []
        node.children = children

    def _split(self, positions: list[int], work: _Work) -> list[_Group]:
        """Groups for ``positions`` (ascending), recursively until each holds few enough."""
        out = []
        for part in self._partition(positions, work):
            if len(part) > self.threshold:
                out.append(_Group(children=self._split(part, work)))
            else:
                out.append(_Group(members=part))
        return out

    def _partition(self, positions: list[int], work: _Work) -> list[list[int]]:
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

    # stability ----------------------------------------------------------------------------
    def _reuse(self, prev: list[PreviousCluster], work: _Work) -> list[_Group] | None:
        """The previous clusters with this revision's passages, or None when too much changed.

        The old and new passage sequences are aligned (difflib): an unchanged passage stays in
        its cluster, a passage edited in place takes its predecessor's, a moved one goes back to
        its old cluster, and only a truly new passage joins the nearest cluster by centroid.
        """
        old: list[tuple[int, str, _Group]] = []

        def rebuild(pc: PreviousCluster) -> _Group:
            if pc.children:
                return _Group(children=[rebuild(c) for c in pc.children])
            g = _Group()
            starts = pc.starts or [0] * len(pc.hashes)
            old.extend((start, h, g) for start, h in zip(starts, pc.hashes, strict=True))
            return g

        groups = [rebuild(pc) for pc in prev]
        old.sort(key=lambda t: t[0])
        old_hashes = [h for _, h, _ in old]
        new_hashes = [p.hash for p in work.passages]
        matcher = SequenceMatcher(None, old_hashes, new_hashes, autojunk=False)
        successors: list[tuple[int, _Group]] = []
        deleted: dict[str, list[_Group]] = defaultdict(list)
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
        if changed > self.reuse_max_change * max(len(new_hashes), len(old_hashes)):
            return None
        newcomers = []
        for j in inserted:
            moved_from = deleted.get(new_hashes[j])
            if moved_from:
                successors.append((j, moved_from.pop(0)))
            else:
                newcomers.append(j)
        # Centroids come from the unchanged passages only (placed above), before any newcomer.
        self._insert(groups, newcomers, work)
        for j, g in successors:
            g.members.append(j)
        return groups

    @staticmethod
    def _insert(groups: list[_Group], added: list[int], work: _Work) -> None:
        """Put each new passage in the leaf reached by following the nearest centroids.

        Centroids are taken from the kept passages only, before any insertion, so the result
        does not depend on the order of the new passages.
        """
        centre: dict[int, np.ndarray | None] = {}

        def measure(g: _Group) -> np.ndarray:
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

    def _tidy(self, groups: list[_Group], work: _Work) -> list[_Group]:
        """Drop empty clusters, collapse single-child ones, split oversized leaves, sort."""

        def fix(g: _Group) -> list[_Group]:
            if g.children:
                kids = [k for c in g.children for k in fix(c)]
                if len(kids) <= 1:
                    return kids
                g.children = sorted(kids, key=_Group.first)
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
        return sorted(out, key=_Group.first)

    def _title(self, groups: list[_Group], work: _Work, prev: list[PreviousCluster]) -> None:
        """Titles: a previous cluster's when the passages are the same, else top c-TF-IDF terms."""
        carried: dict[tuple[str, ...], str] = {}
        for top in prev:
            for pc in top.walk():
                carried.setdefault(tuple(sorted(pc.all_hashes())), pc.title)

        def label(siblings: list[_Group]) -> None:
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


def _work(passages: list[TreeNode], vectors: Mapping[str, np.ndarray]) -> _Work:
    row_of_hash: dict[str, int] = {}
    for p in passages:
        row_of_hash.setdefault(p.hash, len(row_of_hash))
    dim = next((len(v) for v in vectors.values()), 1)
    raw = np.zeros((len(row_of_hash), dim), dtype=np.float64)
    for h, row in row_of_hash.items():
        v = vectors.get(h)
        if v is not None:
            raw[row] = np.asarray(v, dtype=np.float64).reshape(-1)[:dim]
    return _Work(passages, [row_of_hash[p.hash] for p in passages], prepare(raw))


def _cluster_node(g: _Group, parent: TreeNode, passages: list[TreeNode]) -> TreeNode:
    if g.children:
        kids = [_cluster_node(c, parent, passages) for c in g.children]
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
