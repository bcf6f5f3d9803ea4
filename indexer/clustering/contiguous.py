"""The baseline: neighbouring passages grouped in document order, no embeddings used.

RAPTOR's ablation found clustering only slightly better than this; it is also what the tree
falls back to when vectors cannot separate a node's passages (e.g. all identical).
"""

from __future__ import annotations

import numpy as np

from indexer.clustering.base import candidate_ks


class ContiguousClusterer:
    """``k`` runs of (nearly) equal length, in the order the vectors are given."""

    name = "contiguous"

    def cluster(
        self,
        vectors: np.ndarray,
        *,
        n_clusters: int | None = None,
        target_branching: int | None = None,
        seed: int = 0,
    ) -> np.ndarray:
        """Labels ``0..k-1`` in runs; with ``target_branching``, k is the target (within bounds)."""
        n = len(vectors)
        ks = candidate_ks(n, n_clusters=n_clusters, target_branching=target_branching)
        if not ks:
            return np.zeros(n, dtype=np.int64)
        wanted = n_clusters if n_clusters is not None else int(target_branching or 2)
        return contiguous_labels(n, min(max(wanted, ks[0]), ks[-1]))


def contiguous_labels(n: int, k: int) -> np.ndarray:
    """``n`` points in ``k`` runs of nearly equal length (fewer runs when ``n < k``)."""
    k = max(1, min(k, n))
    return (np.arange(n, dtype=np.int64) * k) // max(n, 1)
