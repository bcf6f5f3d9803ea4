"""The best rows of a score vector, per mask, selected exactly without scanning them all twice.

BM25 scores every indexed node of a query in one vector (220k rows at 150k passages, a third of
them above zero for a typical question) and each kind of node needs its own best ``n``. A
selection over all the matching rows of each kind (gather, partition) cost about 0.6 ms per kind.
Here a bound comes first from every ``SAMPLE_STRIDE``-th row: the ``n``-th best sampled score of
a kind is at most the ``n``-th best of all that kind's rows, so the rows scoring at least that
bound hold the exact answer, ties included. One pass over the vector finds the rows above the
lowest bound of all kinds; each kind's exact selection then works on a few hundred rows.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

SAMPLE_STRIDE = 16


def best_rows(
    scores: np.ndarray, masks: Mapping[str, np.ndarray | None], n: int
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """For each mask (None keeps every row), the ``n`` best rows scoring above 0 and their
    scores, best first, equal scores in row order."""
    if n <= 0:
        empty = np.zeros(0, dtype=np.int64)
        return {key: (empty, scores[empty]) for key in masks}
    sample = scores[::SAMPLE_STRIDE]
    bounds = {key: _bound(sample, mask, n) for key, mask in masks.items()}
    lowest = min(bounds.values(), default=0.0)
    rows = np.flatnonzero(scores >= lowest) if lowest > 0 else np.flatnonzero(scores > 0)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for key, mask in masks.items():
        mine = rows if mask is None else rows[mask[rows]]
        values = scores[mine]
        if bounds[key] > lowest:
            keep = values >= bounds[key]
            mine, values = mine[keep], values[keep]
        out[key] = _exact(mine, values, n)
    return out


def _bound(sample: np.ndarray, mask: np.ndarray | None, n: int) -> float:
    """A score at most the ``n``-th best positive score of the rows ``mask`` keeps (0: no
    such bound from the sample, every positive row is a candidate)."""
    values = sample if mask is None else sample[mask[::SAMPLE_STRIDE]]
    values = values[values > 0]
    if len(values) < n:
        return 0.0
    return float(np.partition(values, len(values) - n)[len(values) - n])


def _exact(rows: np.ndarray, values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``n`` best of ``rows`` (ascending), best first, equal values in row order."""
    if len(rows) > n:
        cut = len(values) - n
        nth = np.partition(values, cut)[cut]
        above = np.flatnonzero(values > nth)
        ties = np.flatnonzero(values == nth)[: n - len(above)]
        keep = np.sort(np.concatenate([above, ties]))
        rows, values = rows[keep], values[keep]
    order = np.lexsort((rows, -values))
    return rows[order], values[order]
