"""The reranker interface: fused candidates in, one score per candidate out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from retriever.candidates import Candidate


@dataclass
class RerankInput:
    """What a reranker may read. ``texts`` and ``cosines`` are computed on first call only.

    Attributes:
        query: The query text.
        query_vector: The query's unit embedding.
        candidates: Fused candidates, best first (``fused`` set on each).
    """

    query: str
    query_vector: np.ndarray
    candidates: Sequence[Candidate]
    _texts: Callable[[], dict[str, str]]
    _cosines: Callable[[], dict[str, float]]
    _cache: dict[str, object] = field(default_factory=dict)

    def texts(self) -> dict[str, str]:
        """Candidate texts by node id (a passage's text, a summary node's summary)."""
        if "texts" not in self._cache:
            self._cache["texts"] = self._texts()
        return self._cache["texts"]  # type: ignore[return-value]

    def cosines(self) -> dict[str, float]:
        """Cosine similarity of every candidate to the query (also for BM25-only candidates)."""
        if "cosines" not in self._cache:
            self._cache["cosines"] = self._cosines()
        return self._cache["cosines"]  # type: ignore[return-value]


class Reranker(Protocol):
    """Scores fused candidates; a higher score ranks first."""

    name: str

    def rerank(self, data: RerankInput) -> list[float]:
        """One score per candidate, in the order of ``data.candidates``."""
        ...
