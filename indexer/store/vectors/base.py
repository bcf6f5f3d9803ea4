"""The vector store interface: derived data, rebuilt from SQLite on demand."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class VectorStore(Protocol):
    """Unit vectors by id, with ``doc_id`` and ``kind`` metadata; cosine distance."""

    def upsert(
        self, ids: list[str], vectors: np.ndarray, *, doc_ids: list[str], kinds: list[str]
    ) -> None:
        """Insert or replace vectors."""
        ...

    def existing(self, ids: list[str]) -> set[str]:
        """Which of ``ids`` are stored."""
        ...

    def get(self, ids: list[str]) -> dict[str, np.ndarray]:
        """Stored vectors by id (missing ids are absent)."""
        ...

    def delete(self, ids: list[str]) -> None:
        """Remove vectors (unknown ids are ignored)."""
        ...

    def ids_of_document(self, doc_id: str) -> set[str]:
        """Every stored id of one document."""
        ...

    def all_ids(self) -> set[str]:
        """Every stored id."""
        ...

    def query(self, vector: np.ndarray, n: int) -> list[tuple[str, float]]:
        """The ``n`` nearest ids with cosine similarity, best first."""
        ...

    def count(self) -> int:
        """Number of stored vectors."""
        ...
