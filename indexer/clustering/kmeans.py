"""k-means with the number of clusters picked by the silhouette (sampled).

Full k-means (``n_init`` restarts) up to a few thousand points, MiniBatchKMeans above, so time
and memory stay linear in the number of passages.
"""

from __future__ import annotations

import warnings

import numpy as np

from indexer.clustering.base import candidate_ks, canonical, prepare, silhouette

_MINIBATCH_ABOVE = 2048
_N_INIT = 3
_DIMS: int | None = None  # PCA first was tried: faster, but less stable topic recovery


class KMeansClusterer:
    """k-means on unit vectors (Euclidean on the sphere ≈ cosine)."""

    name = "kmeans"

    def __init__(
        self,
        *,
        minibatch_above: int = _MINIBATCH_ABOVE,
        n_init: int = _N_INIT,
        dims: int | None = _DIMS,
    ) -> None:
        self.minibatch_above = minibatch_above
        self.n_init = n_init
        self.dims = dims

    def cluster(
        self,
        vectors: np.ndarray,
        *,
        n_clusters: int | None = None,
        target_branching: int | None = None,
        seed: int = 0,
    ) -> np.ndarray:
        """Labels for the best k of the candidates (highest silhouette)."""
        x = prepare(vectors)
        ks = candidate_ks(len(x), n_clusters=n_clusters, target_branching=target_branching)
        if ks and self.dims is not None and min(len(x), x.shape[1]) > self.dims:
            from sklearn.decomposition import PCA

            x = PCA(n_components=self.dims, random_state=seed).fit_transform(x)
        best: tuple[float, np.ndarray] | None = None
        for k in ks:
            labels = self._fit(x, k, seed)
            if len(ks) == 1:
                return canonical(labels)
            score = silhouette(x, labels, seed=seed)
            if best is None or score > best[0]:
                best = (score, labels)
        if best is None:
            return np.zeros(len(x), dtype=np.int64)
        return canonical(best[1])

    def _fit(self, x: np.ndarray, k: int, seed: int) -> np.ndarray:
        from sklearn.cluster import KMeans, MiniBatchKMeans
        from sklearn.exceptions import ConvergenceWarning

        model: KMeans | MiniBatchKMeans
        if len(x) > self.minibatch_above:
            model = MiniBatchKMeans(
                n_clusters=k, n_init=self.n_init, batch_size=1024, random_state=seed
            )
        else:
            model = KMeans(n_clusters=k, n_init=self.n_init, random_state=seed)
        with warnings.catch_warnings():
            # Duplicate points give fewer distinct clusters than asked: the caller handles it.
            warnings.simplefilter("ignore", ConvergenceWarning)
            return np.asarray(model.fit_predict(x.astype(np.float32)))
