"""The embedded default: one SQLite file in WAL mode, one connection per thread."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from indexer.errors import CatalogIntegrityError, CatalogUnavailableError, OverstoryError
from indexer.store.backends.base import Backend, Connection, Cursor, Dialect

# Result codes that say the file cannot be used right now, not that a statement is wrong.
_UNAVAILABLE = frozenset(
    {
        "SQLITE_BUSY",
        "SQLITE_LOCKED",
        "SQLITE_CANTOPEN",
        "SQLITE_IOERR",
        "SQLITE_FULL",
        "SQLITE_READONLY",
        "SQLITE_PERM",
        "SQLITE_NOMEM",
    }
)


def mapped_error(exc: sqlite3.Error, location: str) -> OverstoryError | None:
    """The backend-neutral error a driver error stands for, or None (a bug: left as it is)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if isinstance(exc, sqlite3.IntegrityError):
        return CatalogIntegrityError(f"the catalog refused the write: {exc}")
    if any(name.startswith(code) for code in _UNAVAILABLE):
        return CatalogUnavailableError(
            f"the catalog {location} cannot be used now: {exc}", detail={"sqlite": name}
        )
    return None


class SqliteConnection:
    """A ``sqlite3`` connection whose errors leave as the catalog's own."""

    __slots__ = ("raw", "_location")

    def __init__(self, raw: sqlite3.Connection, location: str) -> None:
        self.raw = raw
        self._location = location

    def execute(self, sql: str, params: Sequence[Any] = (), /) -> Cursor:
        """Run one statement."""
        try:
            return self.raw.execute(sql, params)
        except sqlite3.Error as exc:
            mapped = mapped_error(exc, self._location)
            if mapped is None:
                raise
            raise mapped from exc

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> Cursor:
        """Run one statement for every row of parameters."""
        try:
            return self.raw.executemany(sql, rows)
        except sqlite3.Error as exc:
            mapped = mapped_error(exc, self._location)
            if mapped is None:
                raise
            raise mapped from exc


class SqliteBackend(Backend):
    """A SQLite file, WAL mode (readers never wait for the writer), a connection per thread."""

    dialect: Dialect = "sqlite"

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.location = str(path)
        self._local = threading.local()
        # one writer at a time in this process; other processes wait in BEGIN IMMEDIATE
        self.write_lock = threading.RLock()

    @property
    def migration_url(self) -> str:
        """``sqlite:///`` and the file's absolute path."""
        return f"sqlite:///{self.path.resolve()}"

    @property
    def db(self) -> SqliteConnection:
        """This thread's connection (SQLite connections are not shared across threads)."""
        conn: SqliteConnection | None = getattr(self._local, "conn", None)
        if conn is None:
            raw = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            raw.row_factory = sqlite3.Row
            raw.execute("PRAGMA journal_mode=WAL")
            raw.execute("PRAGMA synchronous=NORMAL")
            raw.execute("PRAGMA foreign_keys=ON")
            conn = SqliteConnection(raw, self.location)
            self._local.conn = conn
        return conn

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on error."""
        with self.write_lock:
            db = self.db
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.raw.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    @contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """One read transaction: every read inside sees the same committed state (WAL)."""
        db = self.db
        if db.raw.in_transaction:
            yield
            return
        db.execute("BEGIN")
        try:
            yield
        finally:
            db.raw.execute("COMMIT")

    def data_version(self) -> tuple[int, ...]:
        """``PRAGMA data_version`` moves on other connections' commits, ``total_changes`` on
        this one's."""
        raw = self.db.raw
        return (id(raw), int(raw.execute("PRAGMA data_version").fetchone()[0]), raw.total_changes)

    def storage_pages(self) -> tuple[int, int, int]:
        """The file's page size, page count and free pages."""
        db = self.db
        size = int(db.execute("PRAGMA page_size").fetchone()[0])
        count = int(db.execute("PRAGMA page_count").fetchone()[0])
        free = int(db.execute("PRAGMA freelist_count").fetchone()[0])
        return size, count, free

    def compact(self) -> None:
        """``VACUUM`` rewrites the file (readers continue)."""
        with self.write_lock:
            self.db.execute("VACUUM")
            # in WAL mode the rewritten pages go through the log: fold it back, then truncate
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def release_thread(self) -> None:
        """Close this thread's connection."""
        self.close()

    def close(self) -> None:
        """Close this thread's connection."""
        conn: SqliteConnection | None = getattr(self._local, "conn", None)
        if conn is not None:
            conn.raw.close()
            self._local.conn = None
