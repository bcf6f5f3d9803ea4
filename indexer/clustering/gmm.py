"""RAPTOR's choice: a Gaussian mixture after dimensionality reduction, k picked by BIC.

PCA instead of RAPTOR's UMAP: UMAP is not installed here, is slow, and unseeded UMAP is the
reason RAPTOR's trees are not reproducible. Hard labels (the most likely component), because a
tree node has one parent.
"""

from __future__ import annotations

import warnings

import numpy as np

from indexer.clustering.base import candidate_ks, canonical, prepare

_DIMS = 10


class GMMClusterer:
    """PCA to a few dimensions, then a Gaussian mixture per candidate k, lowest BIC wins."""

    name = "gmm"

    def __init__(self, *, dims: int = _DIMS, covariance: str = "full") -> None:
        self.dims = dims
        self.covariance = covariance

    def cluster(
        self,
        vectors: np.ndarray,
        *,
        n_clusters: int | None = None,
        target_branching: int | None = None,
        seed: int = 0,
    ) -> np.ndarray:
        """Labels of the mixture with the lowest BIC among the candidate k."""
        from sklearn.decomposition import PCA
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.mixture import GaussianMixture

        x = prepare(vectors)
        ks = candidate_ks(len(x), n_clusters=n_clusters, target_branching=target_branching)
        if not ks:
            return np.zeros(len(x), dtype=np.int64)
        dims = max(1, min(self.dims, len(x) - 1, x.shape[1]))
        z = PCA(n_components=dims, random_state=seed).fit_transform(x)
        best: tuple[float, np.ndarray] | None = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for k in ks:
                gm = GaussianMixture(
                    n_components=k,
                    covariance_type=self.covariance,  # type: ignore[arg-type]
                    reg_covar=1e-4,
                    random_state=seed,
                ).fit(z)
                bic = float(gm.bic(z))
                if best is None or bic < best[0]:
                    best = (bic, gm.predict(z))
        assert best is not None
        return canonical(best[1])
