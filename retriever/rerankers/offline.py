"""The offline default reranker: dense and BM25 evidence, standardized per kind.

Raw scores are not comparable across kinds: a summary (many topics in ~160 tokens) has a lower
cosine to any question than the passage it quotes, and a longer BM25 score. Rank fusion hides
this but also throws away how far ahead a candidate is. This reranker keeps the margins and
removes the offset: within each kind it turns the query cosine and the BM25 score of the top
fused candidates into z-scores and adds them, so a passage that stands out among passages and a
summary that stands out among summaries compete on equal terms. It needs nothing but the vectors
already stored (candidates only BM25 found get their stored vector's cosine).

Chosen by measurement on ``fixtures/questions.jsonl`` against plain fusion, fusion weights, kind
priors, cosine bonuses and summary-subsumption rules (see docs/benchmarks/retrieval.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from retriever.rerankers.base import RerankInput


class CalibratedReranker:
    """``dense_weight * z(cosine) + lexical_weight * z(bm25)``, z-scores taken within each kind."""

    name = "offline"

    def __init__(self, *, dense_weight: float = 1.0, lexical_weight: float = 1.0) -> None:
        self.dense_weight = dense_weight
        self.lexical_weight = lexical_weight

    def rerank(self, data: RerankInput) -> list[float]:
        """One score per candidate: the sum of its weighted per-kind z-scores."""
        cosines = data.cosines()
        scores = np.zeros(len(data.candidates))
        for kind in ("passage", "summary"):
            idx = [i for i, c in enumerate(data.candidates) if c.node.kind == kind]
            if not idx:
                continue
            dense = [cosines.get(data.candidates[i].node_id, 0.0) for i in idx]
            lexical = [data.candidates[i].lexical or 0.0 for i in idx]
            scores[idx] = self.dense_weight * _z(dense) + self.lexical_weight * _z(lexical)
        return [float(s) for s in scores]


def _z(values: Sequence[float]) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    std = float(arr.std())
    if len(arr) < 2 or std < 1e-9:
        return np.zeros(len(arr))
    return (arr - arr.mean()) / std
