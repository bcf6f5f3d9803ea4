"""A vector store whose every vector is also kept in SQLite (``vector_copies``).

Writes go to SQLite first, then to the vector store; deletions the other way round. So a crash
between the two leaves at worst a copy the vector store lacks (restored from the copy by
``doctor``) or a copy nobody references (swept at the next ingest): never a vector the system
of record does not know, and never one to encode again.
"""

from __future__ import annotations

import numpy as np

from indexer.store.vector_copies import VectorCopies
from indexer.store.vectors.base import VectorStore


class RecordedVectorStore:
    """:class:`VectorStore` over ``inner``, with each vector recorded in ``copies``."""

    def __init__(self, inner: VectorStore, copies: VectorCopies) -> None:
        self.inner = inner
        self.copies = copies

    def upsert(
        self, ids: list[str], vectors: np.ndarray, *, doc_ids: list[str], kinds: list[str]
    ) -> None:
        self.copies.put(ids, vectors, doc_ids=doc_ids, kinds=kinds)
        self.inner.upsert(ids, vectors, doc_ids=doc_ids, kinds=kinds)

    def existing(self, ids: list[str]) -> set[str]:
        return self.inner.existing(ids)

    def get(self, ids: list[str]) -> dict[str, np.ndarray]:
        found = self.copies.get(ids)
        missing = [i for i in ids if i not in found]
        if missing:  # a store written before vectors were recorded
            found.update(self.inner.get(missing))
        return found

    def delete(self, ids: list[str]) -> None:
        self.inner.delete(ids)
        self.copies.delete(ids)

    def ids_of_document(self, doc_id: str) -> set[str]:
        return self.inner.ids_of_document(doc_id)

    def all_ids(self) -> set[str]:
        return self.inner.all_ids()

    def query(self, vector: np.ndarray, n: int) -> list[tuple[str, float]]:
        return self.inner.query(vector, n)

    def count(self) -> int:
        return self.inner.count()
