"""The article's method: k-means with K = outputs wanted, the passage nearest each centroid."""

from __future__ import annotations

import numpy as np

from retriever.selection.base import KMeansDetail, Partition
from retriever.selection.kmeans import kmeans


class CentroidMethod:
    """k-means clusters; a member's relevance is its cosine similarity to the cluster centroid."""

    name = "centroid"

    def partition(
        self, vectors: np.ndarray, k: int, *, seed: int, strata: np.ndarray | None = None
    ) -> Partition:
        """k-means (greedy k-means++ seeding, Lloyd steps) into exactly ``k`` clusters."""
        fit = kmeans(vectors, k, seed=seed)
        detail = KMeansDetail(inertia=round(fit.inertia, 4), iterations=fit.iterations)
        return Partition(fit.labels, fit.centers, detail)

    def relevance(self, vectors: np.ndarray, center: np.ndarray, *, seed: int) -> np.ndarray:
        """Cosine similarity to the centroid: the most *typical* member ranks first."""
        return centroid_similarity(vectors, center)


def centroid_similarity(vectors: np.ndarray, center: np.ndarray) -> np.ndarray:
    """Cosine similarity of unit ``vectors`` to the direction of ``center``."""
    norm = float(np.linalg.norm(center))
    if norm == 0.0:
        return np.zeros(vectors.shape[0], dtype=np.float32)
    return np.asarray(vectors @ (center / norm), dtype=np.float32)
