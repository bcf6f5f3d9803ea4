"""Ranking inside each cluster, TextRank-style ("Graphs in Clusters"), and the global baseline.

The graph links each passage to its most similar neighbours (cosine of the stored embeddings).
On a complete graph weighted by cosine, PageRank is close to each node's total similarity, which
is nearly its similarity to the mean — the centroid rule again. Keeping only each node's nearest
neighbours makes centrality mean *local density*: the passage at the heart of the largest
coherent group wins, not the bland one between two groups.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from retriever.selection.base import Partition
from retriever.selection.centroid import CentroidMethod

NEIGHBOURS = 10
DAMPING = 0.85
# Larger clusters are ranked on a seeded uniform sample of this many members (the graph is n²).
MAX_GRAPH = 1000


class RankMethod:
    """k-means clusters (as ``centroid``); representatives by TextRank inside each cluster."""

    name = "rank"

    def partition(
        self, vectors: np.ndarray, k: int, *, seed: int, strata: np.ndarray | None = None
    ) -> Partition:
        """The same clusters as the centroid method."""
        return CentroidMethod().partition(vectors, k, seed=seed)

    def relevance(self, vectors: np.ndarray, center: np.ndarray, *, seed: int) -> np.ndarray:
        """TextRank centrality scaled so the most central member scores 1.0."""
        n = vectors.shape[0]
        scores = np.zeros(n, dtype=np.float32)
        rows = np.arange(n)
        if n > MAX_GRAPH:
            rng = np.random.default_rng(seed)
            rows = np.sort(rng.choice(n, MAX_GRAPH, replace=False))
        rank = textrank(vectors[rows])
        scores[rows] = rank / max(float(rank.max()), 1e-12)
        return scores


def textrank(vectors: np.ndarray, *, neighbours: int = NEIGHBOURS) -> np.ndarray:
    """PageRank over the k-nearest-neighbour cosine graph of unit ``vectors``.

    Args:
        vectors: Unit vectors, shape ``(n, d)``.
        neighbours: Edges kept per node (its most similar others); the graph is symmetrized.

    Returns:
        Scores summing to 1, shape ``(n,)``.
    """
    n = vectors.shape[0]
    if n <= 2:
        return np.full(n, 1.0 / max(n, 1))
    x = np.asarray(vectors, dtype=np.float32)
    sim = x @ x.T
    np.fill_diagonal(sim, -np.inf)
    keep = min(neighbours, n - 1)
    cols = np.argpartition(-sim, keep - 1, axis=1)[:, :keep]
    rows = np.repeat(np.arange(n), keep)
    weights = np.clip(sim[rows, cols.ravel()], 0.0, None).astype(np.float64)
    graph = sparse.csr_matrix((weights, (rows, cols.ravel())), shape=(n, n))
    graph = graph.maximum(graph.T).tocsr()
    degree = np.asarray(graph.sum(axis=1)).ravel()
    dangling = degree <= 0
    walk = sparse.diags(np.divide(1.0, degree, out=np.zeros(n), where=~dangling)) @ graph
    walk_t = walk.T.tocsr()
    rank = np.full(n, 1.0 / n)
    for _ in range(200):
        # A node without positive edges teleports uniformly (dangling node).
        spread = float(rank[dangling].sum()) / n
        new = (1.0 - DAMPING) / n + DAMPING * (walk_t @ rank + spread)
        done = float(np.abs(new - rank).sum()) < 1e-8
        rank = new
        if done:
            break
    return np.asarray(rank / rank.sum())


def textrank_top_k(vectors: np.ndarray, k: int) -> list[int]:
    """The baseline without clusters: the ``k`` most central passages of the whole scope."""
    rank = textrank(vectors)
    return [int(i) for i in np.argsort(-rank, kind="stable")[:k]]
