"""Balanced selection: over-cluster, then merge the most alike clusters, whatever their size.

k-means with K clusters minimizes squared error, so it spends clusters where the mass is: a topic
holding 40 % of the passages gets split in three while two 3 % topics share one cluster with a
neighbour. Here the passages are first split into ``overcluster × K`` fine clusters — enough for
a small, distinct topic to get one of its own — and then the two clusters whose passages are
most alike on average (mean pairwise cosine, i.e. average linkage / UPGMA) are merged,
repeatedly, until K remain.

Two rules, each measured (``tests/test_select.py``, ``benchmarks/results/select_coverage.json``):

1. Size does not count. Ward's rule weights by size and so merges small clusters first, the
   failure being fixed. Pieces of one large topic are alike and merge early; a small topic
   unlike everything else is merged last. Average linkage rather than the cosine of the
   centroids: a merged, diverse cluster has a shorter mean vector and attracts less, which stops
   one cluster from swallowing its neighbours one by one.
2. Documents are strata when they read differently. When the scope holds no more documents
   than K and most passages lie nearer their own document than any other (see
   ``document_separation``), a merge that would put the bulk of two documents into one cluster
   is skipped and the next most alike pair merged instead. Without it, two manuals written in
   the same register (a pump and a milling machine) merged into one cluster of two thirds of
   the corpus while sub-topics of a third manual kept clusters of their own. Documents that
   are mixtures of the same topics (course notes split in two files) fail the separation test
   and the semantic rule alone decides; so does a scope with more documents than K.

What it costs: a small group of outlying passages keeps its own cluster even when it is noise
rather than a topic — visible in ``size`` and ``share``.
"""

from __future__ import annotations

import numpy as np

from retriever.selection.base import MergeDetail, Partition
from retriever.selection.centroid import centroid_similarity
from retriever.selection.kmeans import group_sums, kmeans

# Documents count as strata when at least this share of passages lie nearer their own document
# than any other (leave-one-out); measured 0.41 for two random halves of one corpus (chance is
# 0.5) and 0.89 for the five fixture documents.
STRATA_SEPARATION = 0.75


class BalancedMethod:
    """Over-cluster with k-means, merge by average similarity down to K."""

    name = "balanced"

    def __init__(self, *, overcluster: int = 4) -> None:
        self.overcluster = overcluster

    def partition(
        self, vectors: np.ndarray, k: int, *, seed: int, strata: np.ndarray | None = None
    ) -> Partition:
        """Exactly ``k`` clusters; the detail says how many fine clusters were merged.

        ``strata`` (the document of each passage, ``0..D-1``) enables rule 2.
        """
        n = vectors.shape[0]
        fine_k = min(n, max(k, self.overcluster * k))
        fit = kmeans(vectors, fine_k, seed=seed)
        groups, detail = merge_by_similarity(vectors, fit.labels, fine_k, k, strata=strata)
        labels = groups[fit.labels]
        centers = group_sums(vectors, labels, k)
        centers /= np.bincount(labels, minlength=k).astype(np.float32)[:, None]
        return Partition(labels, centers, detail)

    def relevance(self, vectors: np.ndarray, center: np.ndarray, *, seed: int) -> np.ndarray:
        """Cosine similarity to the merged cluster's centroid."""
        return centroid_similarity(vectors, center)


def merge_by_similarity(
    vectors: np.ndarray,
    labels: np.ndarray,
    fine_k: int,
    k: int,
    *,
    strata: np.ndarray | None = None,
) -> tuple[np.ndarray, MergeDetail]:
    """Merge fine clusters pairwise, most alike first (average linkage), until ``k`` remain.

    For unit vectors the mean pairwise cosine between two clusters is the dot product of their
    mean vectors, so each step costs one row of products.

    Args:
        vectors: The clustered unit vectors, shape ``(n, d)``.
        labels: Fine cluster of every vector, ``0..fine_k-1``, all non-empty.
        fine_k: Number of fine clusters.
        k: Number of clusters wanted.
        strata: Document of every vector, ``0..D-1``; with ``D <= k`` separable documents,
            merges that would put the bulk of two documents into one cluster are skipped.

    Returns:
        For each fine cluster its final cluster in ``0..k-1`` (numbered by first fine cluster),
        and the merge's :class:`MergeDetail` (what rule 2 did: documents kept apart, and their
        separation, None when not measured: one document, or more than K).
    """
    sums = group_sums(vectors, labels, fine_k).astype(np.float64)
    counts = np.bincount(labels, minlength=fine_k).astype(np.float64)
    means = sums / counts[:, None]
    sim = means @ means.T
    np.fill_diagonal(sim, -np.inf)
    owner = np.arange(fine_k)
    keeper = _DocumentKeeper(vectors, labels, strata, fine_k, k)
    blocked = np.zeros((fine_k, fine_k), dtype=bool)
    alive = fine_k
    while alive > k:
        allowed = np.where(blocked, -np.inf, sim)
        # Every pair blocked cannot happen while the rule's target is <= k; relax if it does.
        pick = allowed if np.isfinite(allowed).any() else sim
        a, b = divmod(int(np.argmax(pick)), fine_k)
        keep, gone = min(a, b), max(a, b)
        if pick is allowed and not keeper.allows(keep, gone, owner):
            blocked[keep, gone] = blocked[gone, keep] = True
            continue
        keeper.merge(keep, gone)
        sums[keep] += sums[gone]
        counts[keep] += counts[gone]
        owner[owner == gone] = keep
        means[keep] = sums[keep] / counts[keep]
        _refresh_similarities(sim, means, owner, keep=keep, gone=gone)
        blocked[keep, :] = False
        blocked[:, keep] = False
        alive -= 1
    roots = np.unique(owner)
    detail = MergeDetail(
        fine_clusters=fine_k,
        documents_kept_apart=keeper.target,
        document_separation=keeper.separation,
    )
    return np.searchsorted(roots, owner), detail


def _refresh_similarities(
    sim: np.ndarray, means: np.ndarray, owner: np.ndarray, *, keep: int, gone: int
) -> None:
    """After ``keep`` absorbed ``gone``: recompute ``keep``'s row and column, retire ``gone``'s."""
    row = means @ means[keep]
    row[owner != np.arange(len(owner))] = -np.inf
    row[keep] = -np.inf
    sim[keep, :] = row
    sim[:, keep] = row
    sim[gone, :] = -np.inf
    sim[:, gone] = -np.inf


class _DocumentKeeper:
    """Rule 2: documents that read differently keep their bulk in clusters of their own.

    A document's *home* is the cluster holding most of its passages. While the scope has at
    most K documents and they are separable, a merge that would leave fewer distinct homes
    than at the start (capped at K) is skipped.
    """

    def __init__(
        self,
        vectors: np.ndarray,
        labels: np.ndarray,
        strata: np.ndarray | None,
        fine_k: int,
        k: int,
    ) -> None:
        self.target = 0
        self.separation: float | None = None
        if strata is None or strata.size == 0:
            return
        n_docs = int(strata.max()) + 1
        if n_docs < 2 or n_docs > k:
            return
        self.separation = document_separation(vectors, strata)
        if self.separation < STRATA_SEPARATION:
            return
        self.docs = np.zeros((fine_k, n_docs), dtype=np.int64)
        np.add.at(self.docs, (labels, strata), 1)
        self.target = min(self._homes(self.docs, np.arange(fine_k)), k)

    @staticmethod
    def _homes(docs: np.ndarray, alive: np.ndarray) -> int:
        return len(set(alive[docs[alive].argmax(axis=0)].tolist()))

    def allows(self, keep: int, gone: int, owner: np.ndarray) -> bool:
        """Whether merging ``gone`` into ``keep`` keeps ``target`` distinct homes."""
        if not self.target:
            return True
        alive = np.flatnonzero(
            (owner == np.arange(owner.shape[0])) & (np.arange(owner.shape[0]) != gone)
        )
        docs = self.docs.copy()
        docs[keep] += docs[gone]
        return self._homes(docs, alive) >= self.target

    def merge(self, keep: int, gone: int) -> None:
        """Record a merge."""
        if self.target:
            self.docs[keep] += self.docs[gone]
            self.docs[gone] = 0


def document_separation(vectors: np.ndarray, strata: np.ndarray) -> float:
    """Share of passages nearer (cosine, leaving themselves out) to their own document's mean
    direction than to any other document's: about 1/D when documents are random mixtures of the
    same topics, near 1 when each document is its own subject."""
    n_docs = int(strata.max()) + 1
    sums = group_sums(vectors, strata, n_docs).astype(np.float64)
    rows = np.arange(vectors.shape[0])
    own = sums[strata] - vectors
    dots = vectors @ sums.T
    norms = np.broadcast_to(np.linalg.norm(sums, axis=1), dots.shape).copy()
    dots[rows, strata] = np.einsum("ij,ij->i", vectors, own)
    norms[rows, strata] = np.linalg.norm(own, axis=1)
    nearest = np.argmax(dots / np.maximum(norms, 1e-12), axis=1)
    return float(np.mean(nearest == strata))
