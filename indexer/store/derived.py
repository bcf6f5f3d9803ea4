"""What an ingest derives from bytes and can reuse when the bytes come back: a file of the store.

``derived.db`` (SQLite, beside the catalog in the store folder, whatever the catalog's backend)
maps ``(kind, key)`` to bytes, the key a content hash of everything the value depends on. It is
a cache: deleting the file loses nothing but time, and a value that cannot be read is treated
as missing.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

DERIVED_FILE = "derived.db"


class DerivedCache:
    """``(kind, key) → bytes`` in ``derived.db``; writes wait in memory until :meth:`flush`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._pending: dict[tuple[str, str], bytes] = {}
        self._db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            db.execute(
                "CREATE TABLE IF NOT EXISTS derived (kind TEXT NOT NULL, key TEXT NOT NULL,"
                " value BLOB NOT NULL, PRIMARY KEY (kind, key))"
            )
            self._db = db
        return self._db

    def get(self, kind: str, key: str) -> bytes | None:
        """The value stored for ``key``, or None."""
        with self._lock:
            if (kind, key) in self._pending:
                return self._pending[(kind, key)]
            try:
                row = (
                    self._connect()
                    .execute("SELECT value FROM derived WHERE kind = ? AND key = ?", (kind, key))
                    .fetchone()
                )
            except sqlite3.Error:
                return None
        return None if row is None else bytes(row[0])

    def put(self, kind: str, key: str, value: bytes) -> None:
        """Keep ``value`` for ``key`` (written by the next :meth:`flush`)."""
        with self._lock:
            self._pending[(kind, key)] = value

    def flush(self) -> None:
        """Write the values kept since the last flush, in one transaction."""
        with self._lock:
            if not self._pending:
                return
            rows = [(k, key, v) for (k, key), v in self._pending.items()]
            self._pending.clear()
            try:
                db = self._connect()
                with db:
                    db.executemany("INSERT OR REPLACE INTO derived VALUES (?, ?, ?)", rows)
            except sqlite3.Error:
                pass  # a cache: the next ingest derives them again

    def close(self) -> None:
        """Flush and close the file."""
        self.flush()
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
