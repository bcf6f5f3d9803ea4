"""The clusterer interface and what every backend shares.

A clusterer turns the vectors of one node's passages into hard labels. It either gets the number
of clusters (``n_clusters``) or a target branching factor (``target_branching``), in which case it
picks the number itself inside :func:`candidate_ks` by its own criterion (silhouette, BIC, …).
Labels are canonical: ``0..k-1`` numbered by first occurrence, every point labelled (no noise),
so the same input gives the same labels whatever the backend's internal numbering.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

SILHOUETTE_SAMPLE = 1000


class Clusterer(Protocol):
    """Groups vectors; deterministic for a given ``seed``."""

    name: str

    def cluster(
        self,
        vectors: np.ndarray,
        *,
        n_clusters: int | None = None,
        target_branching: int | None = None,
        seed: int = 0,
    ) -> np.ndarray:
        """One label per row of ``vectors`` (an ``(n, d)`` array), canonical ``0..k-1``."""
        ...


def branching_bounds(target: int) -> tuple[int, int]:
    """The range of children a target branching factor allows: about 5/8 to 5/4 of it."""
    lo = max(2, -(-5 * target // 8))
    return lo, max(lo, 5 * target // 4)


def candidate_ks(
    n_points: int, *, n_clusters: int | None = None, target_branching: int | None = None
) -> list[int]:
    """Numbers of clusters worth trying for ``n_points`` points (empty below 2 points).

    Raises:
        ValueError: Neither or both of ``n_clusters`` and ``target_branching`` given.
    """
    if (n_clusters is None) == (target_branching is None):
        raise ValueError("give exactly one of n_clusters and target_branching")
    if n_points < 2:
        return []
    if n_clusters is not None:
        return [max(1, min(n_clusters, n_points))]
    lo, hi = branching_bounds(int(target_branching or 2))
    hi = min(hi, max(2, n_points - 1))
    lo = min(lo, hi)
    return list(range(lo, hi + 1))


def prepare(vectors: np.ndarray) -> np.ndarray:
    """Finite, L2-normalized float64 rows (zero rows stay zero): safe input for every backend."""
    x = np.nan_to_num(np.asarray(vectors, dtype=np.float64), nan=0.0, posinf=0.0, neginf=0.0)
    if x.ndim != 2:
        x = x.reshape(len(x), -1)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)


def canonical(labels: np.ndarray) -> np.ndarray:
    """Labels renumbered ``0..k-1`` in order of first occurrence."""
    labels = np.asarray(labels)
    _, first = np.unique(labels, return_index=True)
    order = np.argsort(first, kind="stable")
    mapping = {int(labels[first[j]]): rank for rank, j in enumerate(order)}
    return np.array([mapping[int(v)] for v in labels], dtype=np.int64)


def centroids(x: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Mean vector of each label ``0..max``."""
    k = int(labels.max()) + 1
    sums = np.zeros((k, x.shape[1]))
    np.add.at(sums, labels, x)
    counts = np.bincount(labels, minlength=k).astype(np.float64)
    return sums / np.maximum(counts, 1.0)[:, None]


def silhouette(x: np.ndarray, labels: np.ndarray, *, seed: int = 0) -> float:
    """Mean silhouette (Euclidean) on at most ``SILHOUETTE_SAMPLE`` points drawn with ``seed``.

    The exact silhouette needs all pairwise distances: sampling bounds the cost at
    ``SILHOUETTE_SAMPLE``² distances (8 MB) whatever the number of passages. The cheaper
    simplified silhouette (distances to centroids) was tried and rejected: it favours too many
    clusters (7 instead of 5 on the five-topic test corpus).
    """
    from sklearn.metrics import silhouette_score

    n_labels = len(np.unique(labels))
    if n_labels < 2 or n_labels >= len(x):
        return -1.0
    sample = SILHOUETTE_SAMPLE if len(x) > SILHOUETTE_SAMPLE else None
    return float(silhouette_score(x, labels, sample_size=sample, random_state=seed))


def nearest_centroid(x: np.ndarray, cents: np.ndarray) -> np.ndarray:
    """Index of the nearest centroid (Euclidean) of each row; ties go to the lowest index."""
    d = (cents * cents).sum(1)[None, :] - 2 * x @ cents.T
    return np.argmin(d, axis=1)
