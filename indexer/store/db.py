"""One SQLite file: a connection per thread, write transactions, and chunked ``IN (…)`` reads.

Only ``indexer/store/`` speaks SQL. Every table's access class takes a :class:`Database` and
reads through :meth:`Database.db` or writes inside :meth:`Database.write`.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from indexer.errors import ConfigError, UnavailableError

# SQLite's default limit on host parameters is 999 on old builds; 500 leaves room for others.
CHUNK = 500

# Columns added after a table was first released: ``(table, column, declaration)``.
_ADDED_COLUMNS = (
    # the job queue's leases (indexer/store/job_queue.py)
    ("jobs", "worker_id", "TEXT"),
    ("jobs", "lease_until", "REAL"),
    ("jobs", "attempts", "INTEGER NOT NULL DEFAULT 0"),
)


class Database:
    """A SQLite file in WAL mode, its schema applied, with one connection per thread."""

    def __init__(self, path: Path) -> None:
        """Open (or create) the file and apply the schema.

        Raises:
            ConfigError: The file is not a SQLite database.
            UnavailableError: SQLite cannot open it (permissions, a folder in its place).
        """
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._local = threading.local()
        self._write_lock = threading.RLock()
        try:
            with self._write_lock:
                self.db.executescript(
                    resources.files("indexer.store").joinpath("schema.sql").read_text()
                )
                self._add_columns()
        except sqlite3.OperationalError as exc:
            self.close()
            raise UnavailableError(f"cannot open the catalog {path}: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            self.close()
            raise ConfigError(
                f"{path} is not an Overstory catalog ({exc}): is --store the right folder? "
                "Move the file away to start an empty store there"
            ) from exc

    def _add_columns(self) -> None:
        for table, column, declaration in _ADDED_COLUMNS:
            present = {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}
            if column not in present:
                try:
                    self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
                except sqlite3.OperationalError as exc:  # another process added it meanwhile
                    if "duplicate column" not in str(exc):
                        raise

    @property
    def db(self) -> sqlite3.Connection:
        """This thread's connection (SQLite connections are not shared across threads)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            self._local.conn = conn
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE`` … ``COMMIT``), rolled back on error."""
        with self._write_lock:
            db = self.db
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    @contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """One read transaction: every read inside sees the same committed state (WAL)."""
        db = self.db
        if db.in_transaction:
            yield
            return
        db.execute("BEGIN")
        try:
            yield
        finally:
            db.execute("COMMIT")

    def data_version(self) -> tuple[int, int, int]:
        """Changes when anything was committed: by another connection or by this one."""
        db = self.db
        return (id(db), int(db.execute("PRAGMA data_version").fetchone()[0]), db.total_changes)

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def rows_in(
        self,
        sql: str,
        values: Iterable[Any],
        params: Sequence[Any] = (),
    ) -> Iterator[sqlite3.Row]:
        """Rows of ``sql`` for every value, ``{marks}`` in ``sql`` standing for ``IN (…)``.

        The values are deduplicated and queried in chunks of :data:`CHUNK`; ``params`` come
        after the chunk's values.
        """
        unique = list(dict.fromkeys(values))
        for i in range(0, len(unique), CHUNK):
            chunk = unique[i : i + CHUNK]
            marks = ",".join("?" * len(chunk))
            yield from self.db.execute(sql.format(marks=marks), (*chunk, *params))
