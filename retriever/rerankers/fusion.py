"""The ``none`` reranker: keep the fusion order (the fused score is the result score)."""

from __future__ import annotations

from retriever.rerankers.base import RerankInput


class FusionOrder:
    """No reranking: what fusion ranked first stays first."""

    name = "none"

    def rerank(self, data: RerankInput) -> list[float]:
        """The fused scores unchanged."""
        return [c.fused for c in data.candidates]
