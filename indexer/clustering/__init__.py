"""Cluster levels for headingless documents and oversized flat sections, by backend name.

Backends (setting ``clustering``): ``kmeans`` (default), ``gmm`` (RAPTOR's PCA + Gaussian mixture
with a BIC sweep), ``hdbscan``, ``contiguous`` (neighbouring passages, the baseline). scikit-learn
is imported only when a node actually needs clustering.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from indexer.clustering.base import Clusterer
from indexer.clustering.contiguous import ContiguousClusterer
from indexer.clustering.gmm import GMMClusterer
from indexer.clustering.hdbscan import HDBSCANClusterer
from indexer.clustering.kmeans import KMeansClusterer
from indexer.clustering.restructure import ClusterRestructure
from indexer.errors import ConfigError
from indexer.settings import Settings

if TYPE_CHECKING:
    from indexer.store.catalog import Catalog

BACKENDS: dict[str, Callable[[], Clusterer]] = {
    "kmeans": KMeansClusterer,
    "gmm": GMMClusterer,
    "hdbscan": HDBSCANClusterer,
    "contiguous": ContiguousClusterer,
}


def make_clusterer(name: str) -> Clusterer:
    """The clustering backend called ``name``.

    Raises:
        ConfigError: No backend has that name.
    """
    factory = BACKENDS.get(name)
    if factory is None:
        raise ConfigError(
            f"unknown clustering backend {name!r}",
            detail={"available": sorted(BACKENDS)},
        )
    return factory()


def make_restructure(
    settings: Settings, *, catalog: Catalog | None = None
) -> ClusterRestructure | None:
    """The ingest hook adding cluster levels, configured from ``settings`` (None when ``off``).

    Args:
        settings: Reads ``clustering``, ``cluster_threshold``, ``cluster_branching``,
            ``cluster_reuse_max_change`` and ``cluster_seed``.
        catalog: Where the served build's clusters are read from to keep them stable across
            revisions; without it every build clusters from scratch.
    """
    if settings.clustering == "off":
        return None
    return ClusterRestructure(
        make_clusterer(settings.clustering),
        threshold=settings.cluster_threshold,
        branching=settings.cluster_branching,
        reuse_max_change=settings.cluster_reuse_max_change,
        seed=settings.cluster_seed,
        catalog=catalog,
    )


__all__ = ["BACKENDS", "ClusterRestructure", "Clusterer", "make_clusterer", "make_restructure"]
