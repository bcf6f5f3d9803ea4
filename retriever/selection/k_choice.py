"""How many clusters: the request's K, else a token budget, else the elbow of the inertia curve."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from retriever.selection.kmeans import kmeans

ELBOW_MAX_K = 50
ELBOW_SAMPLE = 2000
_ELBOW_ITER = 20


@dataclass(frozen=True)
class KDetail:
    """The inputs of the K rule; a field the rule does not use is None (absent from the JSON).

    ``budget``: ``budget_tokens``, ``mean_passage_tokens``, ``per_cluster`` and ``clamped`` (K
    was raised to 1 or cut to the passages in scope); ``elbow``: ``inertia_curve`` as
    ``[[k, inertia], ...]``; any rule: ``limited_by_max_k`` when the store's ``max_k`` cut K.
    """

    budget_tokens: int | None = None
    mean_passage_tokens: float | None = None
    per_cluster: int | None = None
    clamped: bool | None = None
    inertia_curve: list[list[float]] | None = None
    limited_by_max_k: int | None = None


@dataclass(frozen=True)
class KChoice:
    """The chosen K, the rule that chose it (``request``, ``budget``, ``elbow``) and its inputs."""

    k: int
    rule: str
    detail: KDetail = field(default_factory=KDetail)


def choose_k(
    *,
    requested: int | None,
    budget_tokens: int | None,
    per_cluster: int,
    vectors: np.ndarray,
    mean_tokens: Callable[[], float],
    seed: int,
) -> KChoice:
    """Pick K for ``vectors`` (validated by the caller: requested K within ``1..n``).

    Args:
        requested: K given by the caller; wins over everything else.
        budget_tokens: Context tokens available for all representatives together.
        per_cluster: Representatives per cluster (a budget pays for each of them).
        vectors: The passages in scope, shape ``(n, d)``.
        mean_tokens: Mean passage length in model tokens (called only for the budget rule).
        seed: Seed of the elbow's k-means fits.
    """
    n = vectors.shape[0]
    if requested is not None:
        return KChoice(requested, "request")
    if budget_tokens is not None:
        mean = max(mean_tokens(), 1.0)
        raw = int(budget_tokens // (mean * per_cluster))
        k = min(max(raw, 1), n)
        detail = KDetail(
            budget_tokens=budget_tokens,
            mean_passage_tokens=round(mean, 1),
            per_cluster=per_cluster,
            clamped=k != raw,
        )
        return KChoice(k, "budget", detail)
    k, curve = elbow_k(vectors, seed=seed)
    return KChoice(k, "elbow", KDetail(inertia_curve=curve))


def elbow_k(vectors: np.ndarray, *, seed: int) -> tuple[int, list[list[float]]]:
    """The K where the k-means inertia curve bends most (the point farthest below its chord).

    Inertia is computed on a seeded sample of at most ``ELBOW_SAMPLE`` passages for K on a grid
    from 1 to ``min(ELBOW_MAX_K, n // 2)``.

    Returns:
        The chosen K and the curve as ``[[k, inertia], ...]``.
    """
    n = vectors.shape[0]
    k_max = min(ELBOW_MAX_K, n // 2)
    if k_max < 2:
        return 1, []
    sample = vectors
    if n > ELBOW_SAMPLE:
        rng = np.random.default_rng(seed)
        sample = vectors[np.sort(rng.choice(n, ELBOW_SAMPLE, replace=False))]
    grid = _grid(k_max)
    inertia = np.array(
        [kmeans(sample, k, seed=seed, max_iter=_ELBOW_ITER).inertia for k in grid], dtype=np.float64
    )
    curve = [[float(k), round(float(v), 4)] for k, v in zip(grid, inertia, strict=True)]
    span = float(inertia.max() - inertia.min())
    if span <= 0:
        return 1, curve
    x = (np.array(grid, dtype=np.float64) - grid[0]) / (grid[-1] - grid[0])
    y = (inertia - inertia.min()) / span
    below_chord = (1.0 - x) - y
    return int(grid[int(np.argmax(below_chord))]), curve


def _grid(k_max: int) -> list[int]:
    """1..10, then steps of about 25 % up to ``k_max``."""
    ks = set(range(1, min(10, k_max) + 1))
    k = 10.0
    while k < k_max:
        k *= 1.25
        ks.add(min(int(round(k)), k_max))
    ks.add(k_max)
    return sorted(ks)
