"""The vectors, in the catalog too: what the vector store is rebuilt from, never encoded again.

numpy is imported where vectors are read or written, not with the catalog (``overstory docs``
opens the catalog and needs no vectors).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from indexer.store.db import Database

DTYPE = "float32"

# a copy no served build references
_UNSERVED = (
    "NOT EXISTS (SELECT 1 FROM nodes n JOIN documents d ON n.build_id = d.current_build"
    " WHERE n.vector_id = c.vector_id)"
)
# a copy of a document with an unpublished build newer than the one it serves (if any)
_RETRYABLE = (
    "EXISTS (SELECT 1 FROM builds b WHERE b.doc_id = c.doc_id"
    " AND b.status IN ('building', 'failed')"
    " AND b.build_id > COALESCE((SELECT d.current_build FROM documents d"
    " WHERE d.doc_id = c.doc_id), 0))"
)


class VectorCopies:
    """``vector_copies``: id → (doc_id, kind, float32 vector)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def put(
        self, ids: list[str], vectors: np.ndarray, *, doc_ids: list[str], kinds: list[str]
    ) -> None:
        """Insert or replace vectors (one transaction)."""
        import numpy as np

        rows = [
            (vid, doc, kind, np.asarray(vec, dtype=DTYPE).tobytes())
            for vid, vec, doc, kind in zip(ids, vectors, doc_ids, kinds, strict=True)
        ]
        with self._db.write() as db:
            db.executemany(
                "INSERT INTO vector_copies (vector_id, doc_id, kind, vector)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (vector_id) DO UPDATE SET"
                " doc_id = excluded.doc_id, kind = excluded.kind, vector = excluded.vector",
                rows,
            )

    def get(self, ids: list[str]) -> dict[str, np.ndarray]:
        """Stored vectors by id (missing ids are absent)."""
        import numpy as np

        rows = self._db.rows_in(
            "SELECT vector_id, vector FROM vector_copies WHERE vector_id IN ({marks})",
            list(dict.fromkeys(ids)),
        )
        return {r["vector_id"]: np.frombuffer(r["vector"], dtype=DTYPE).copy() for r in rows}

    def delete(self, ids: list[str]) -> None:
        """Forget vectors (unknown ids are ignored)."""
        with self._db.write() as db:
            db.executemany("DELETE FROM vector_copies WHERE vector_id = ?", [(i,) for i in ids])

    def unreferenced(self) -> list[str]:
        """Ids no served build references: leftovers of builds that never got published, except
        those :meth:`kept_for_retry` keeps.

        Only safe to act on while no build is being written (the caller holds the ingest lock).
        """
        rows = self._db.db.execute(
            f"SELECT c.vector_id FROM vector_copies c WHERE {_UNSERVED} AND NOT {_RETRYABLE}"
        )
        return [r[0] for r in rows]

    def kept_for_retry(self) -> list[str]:
        """Unserved ids of a document whose newest build never got published (failed or
        interrupted): a retry of that build reuses them rather than encoding them again. They
        go once a newer build of the document is published (or the document is deleted)."""
        rows = self._db.db.execute(
            f"SELECT c.vector_id FROM vector_copies c WHERE {_UNSERVED} AND {_RETRYABLE}"
        )
        return [r[0] for r in rows]

    def batches(
        self, ids: set[str], size: int = 2000
    ) -> Iterator[tuple[list[str], np.ndarray, list[str], list[str]]]:
        """The stored vectors among ``ids``, as ``(ids, vectors, doc_ids, kinds)`` batches."""
        import numpy as np

        wanted = sorted(ids)
        for i in range(0, len(wanted), size):
            rows = list(
                self._db.rows_in(
                    "SELECT vector_id, doc_id, kind, vector FROM vector_copies"
                    " WHERE vector_id IN ({marks})",
                    wanted[i : i + size],
                )
            )
            if rows:
                yield (
                    [r["vector_id"] for r in rows],
                    np.stack([np.frombuffer(r["vector"], dtype=DTYPE) for r in rows]),
                    [r["doc_id"] for r in rows],
                    [r["kind"] for r in rows],
                )
