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
        """Ids no served build references: leftovers of builds that never got published.

        Only safe to act on while no build is being written (the caller holds the ingest lock).
        """
        rows = self._db.db.execute(
            "SELECT c.vector_id FROM vector_copies c WHERE NOT EXISTS (SELECT 1 FROM nodes n"
            " JOIN documents d ON n.build_id = d.current_build WHERE n.vector_id = c.vector_id)"
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
