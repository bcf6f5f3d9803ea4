"""HDBSCAN (scikit-learn's), adapted to a tree: noise joins the nearest cluster, and the clusters
are merged down to the allowed number of children when it finds too many.

HDBSCAN has no notion of a target number of clusters; on passage embeddings it often finds only
two dense groups or none. When it finds fewer than two, k-means decides instead.
"""

from __future__ import annotations

import numpy as np

from indexer.clustering.base import candidate_ks, canonical, centroids, nearest_centroid, prepare
from indexer.clustering.kmeans import KMeansClusterer

_DIMS = 10


class HDBSCANClusterer:
    """Density clusters on a PCA projection, post-processed into 2..k_max hard labels."""

    name = "hdbscan"

    def __init__(self, *, dims: int = _DIMS) -> None:
        self.dims = dims
        self.native_clusters = 0  # clusters HDBSCAN itself found on the last call (benchmark)

    def cluster(
        self,
        vectors: np.ndarray,
        *,
        n_clusters: int | None = None,
        target_branching: int | None = None,
        seed: int = 0,
    ) -> np.ndarray:
        """Labels with every point assigned and at most the largest candidate k clusters."""
        from sklearn.cluster import HDBSCAN
        from sklearn.decomposition import PCA

        x = prepare(vectors)
        ks = candidate_ks(len(x), n_clusters=n_clusters, target_branching=target_branching)
        self.native_clusters = 0
        if not ks or len(x) < 4:
            return KMeansClusterer().cluster(
                x, n_clusters=n_clusters, target_branching=target_branching, seed=seed
            )
        dims = max(1, min(self.dims, len(x) - 1, x.shape[1]))
        z = PCA(n_components=dims, random_state=seed).fit_transform(x)
        min_size = max(2, len(x) // (4 * max(ks)))
        labels = np.asarray(HDBSCAN(min_cluster_size=min_size, copy=True).fit_predict(z))
        found = sorted(set(labels.tolist()) - {-1})
        self.native_clusters = len(found)
        if len(found) < 2:
            return KMeansClusterer().cluster(
                x, n_clusters=n_clusters, target_branching=target_branching, seed=seed
            )
        dense = labels >= 0
        out = np.full(len(x), -1, dtype=np.int64)
        out[dense] = canonical(labels[dense])
        cents = centroids(z[dense], out[dense])
        if (~dense).any():
            out[~dense] = nearest_centroid(z[~dense], cents)
        labels = out
        if len(cents) > max(ks):
            labels = self._merge(z, labels, max(ks), seed)
        return canonical(labels)

    @staticmethod
    def _merge(z: np.ndarray, labels: np.ndarray, k: int, seed: int) -> np.ndarray:
        """Merge clusters by k-means over their centroids, weighted by their sizes."""
        from sklearn.cluster import KMeans

        cents = centroids(z, labels)
        sizes = np.bincount(labels, minlength=len(cents)).astype(np.float64)
        groups = KMeans(n_clusters=k, n_init=3, random_state=seed).fit_predict(
            cents, sample_weight=sizes
        )
        return np.asarray(groups)[labels]
