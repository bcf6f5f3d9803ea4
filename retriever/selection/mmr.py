"""Several representatives per cluster, diverse: maximal marginal relevance (MMR)."""

from __future__ import annotations

import numpy as np

# Only the best this-many-per-pick members are considered (the rest are never picked anyway).
_POOL_PER_PICK = 20


def mmr(vectors: np.ndarray, relevance: np.ndarray, n: int, *, lam: float) -> list[int]:
    """Pick ``n`` rows: the most relevant first, then each maximizing relevance minus redundancy.

    Args:
        vectors: Unit vectors of the cluster's members, shape ``(m, d)``.
        relevance: The method's score of each member, higher is better (scaled to a best of 1).
        n: How many to pick (at most ``m``).
        lam: Weight of relevance against similarity to what is already picked, in ``[0, 1]``;
            1.0 is plain top-n by relevance.

    Returns:
        Row indices in pick order.
    """
    m = vectors.shape[0]
    n = min(n, m)
    if n <= 0:
        return []
    order = np.argsort(-relevance, kind="stable")
    pool = order[: max(n * _POOL_PER_PICK, 50)]
    # Scaled so the best member scores 1: relevance and cosine redundancy share a scale, and
    # ratios between members are kept (min-max scaling would blow small gaps up).
    rel = np.clip(relevance[pool].astype(np.float64), 0.0, None)
    top = float(rel.max())
    rel = rel / top if top > 0 else np.ones_like(rel)
    sims = np.asarray(vectors[pool] @ vectors[pool].T, dtype=np.float64)
    picked = [0]
    max_sim = sims[0].copy()
    available = np.ones(pool.shape[0], dtype=bool)
    available[0] = False
    while len(picked) < n:
        gain = lam * rel - (1.0 - lam) * max_sim
        gain[~available] = -np.inf
        best = int(np.argmax(gain))
        picked.append(best)
        available[best] = False
        max_sim = np.maximum(max_sim, sims[best])
    return [int(pool[i]) for i in picked]
