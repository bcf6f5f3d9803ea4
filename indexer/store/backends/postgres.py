"""The catalog on PostgreSQL: psycopg 3 and a ``psycopg_pool`` connection pool.

Statements are written once for both engines with ``?`` placeholders; they are rewritten to
psycopg's ``%s`` here. Outside a transaction a statement borrows a pooled connection (in
autocommit) for as long as it runs; ``write()`` and ``read_snapshot()`` hold one connection for
the thread until they end.

A write transaction starts by bumping the one row of ``catalog_version``: that row lock makes
writers wait for each other, on every machine, as ``BEGIN IMMEDIATE`` does on SQLite, and its
value is the data version readers compare to notice a commit.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from indexer.errors import (
    CatalogIntegrityError,
    CatalogUnavailableError,
    ConfigError,
    OverstoryError,
)
from indexer.store.backends.base import Backend, Connection, Cursor, Dialect

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

POOL_SIZE = 16  # connections per process: statements borrow one only while they run
POOL_TIMEOUT = 30.0  # seconds a statement waits for a free connection before it fails
_TOKENS = re.compile(r"'(?:[^']|'')*'|\?|%")


@lru_cache(maxsize=1024)
def pg_sql(sql: str) -> str:
    """``?`` placeholders as ``%s`` and a literal ``%`` as ``%%``, string literals untouched."""

    def swap(m: re.Match[str]) -> str:
        token = m.group()
        return "%s" if token == "?" else "%%" if token == "%" else token

    return _TOKENS.sub(swap, sql)


class PgRow:
    """A row as ``sqlite3.Row`` gives it: by name, by position, ``keys()``, iterable."""

    __slots__ = ("_index", "_values")

    def __init__(self, index: dict[str, int], values: Sequence[Any]) -> None:
        self._index = index
        self._values = values

    def __getitem__(self, key: int | str, /) -> Any:
        if isinstance(key, str):
            return self._values[self._index[key]]
        return self._values[key]

    def keys(self) -> list[str]:
        return list(self._index)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PgRow) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self._values))

    def __repr__(self) -> str:
        return f"PgRow({dict(zip(self._index, self._values, strict=True))!r})"


def _row_factory(cursor: psycopg.Cursor[Any]) -> Callable[[Sequence[Any]], PgRow]:
    index: dict[str, int] = {}
    for i, column in enumerate(cursor.description or ()):
        index.setdefault(column.name, i)  # a repeated name: the first, as sqlite3.Row does
    return lambda values: PgRow(index, values)


class PgResult:
    """A statement's rows, fetched whole (the connection goes back to the pool at once)."""

    __slots__ = ("rows", "rowcount")

    def __init__(self, rows: list[PgRow], rowcount: int) -> None:
        self.rows = rows
        self.rowcount = rowcount

    def fetchone(self) -> PgRow | None:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list[PgRow]:
        return self.rows

    def __iter__(self) -> Iterator[PgRow]:
        return iter(self.rows)


def mapped_error(exc: Exception, location: str) -> OverstoryError | None:
    """The backend-neutral error a driver error stands for, or None (a bug: left as it is)."""
    import psycopg

    if isinstance(exc, psycopg.IntegrityError):
        return CatalogIntegrityError(f"the catalog refused the write: {exc}".strip())
    if isinstance(exc, psycopg.OperationalError):
        return CatalogUnavailableError(
            f"the catalog {location} does not answer: {exc}".strip(),
            detail={"sqlstate": getattr(exc, "sqlstate", None)},
        )
    return None


class PgConnection:
    """Statements on one held connection, or each on a connection borrowed from the pool."""

    __slots__ = ("_backend", "_conn")

    def __init__(self, backend: PostgresBackend, conn: psycopg.Connection[Any] | None) -> None:
        self._backend = backend
        self._conn = conn

    def execute(self, sql: str, params: Sequence[Any] = (), /) -> Cursor:
        """Run one statement; its rows are fetched before it returns."""
        if not params:  # psycopg reads no placeholders (nor %%) in a statement without any
            return self._run(lambda conn: conn.execute(sql))
        return self._run(lambda conn: conn.execute(pg_sql(sql), params))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> Cursor:
        """Run one statement for every row of parameters (pipelined by psycopg)."""

        def many(conn: psycopg.Connection[Any]) -> psycopg.Cursor[Any]:
            cur = conn.cursor()
            cur.executemany(pg_sql(sql), list(rows))
            return cur

        return self._run(many)

    def _run(self, step: Callable[[psycopg.Connection[Any]], psycopg.Cursor[Any]]) -> PgResult:
        import psycopg

        try:
            if self._conn is not None:
                return _result(step(self._conn))
            with self._backend.pool.connection() as conn:
                return _result(step(conn))
        except psycopg.Error as exc:  # the pool's PoolTimeout is an OperationalError too
            mapped = mapped_error(exc, self._backend.location)
            if mapped is None:
                raise
            raise mapped from exc


def _result(cur: psycopg.Cursor[Any]) -> PgResult:
    rows = cur.fetchall() if cur.description is not None else []
    return PgResult(rows, cur.rowcount)


class PostgresBackend(Backend):
    """A PostgreSQL database reached through a connection pool."""

    dialect: Dialect = "postgresql"

    def __init__(self, url: str) -> None:
        try:
            import psycopg  # noqa: F401
            import psycopg_pool  # noqa: F401
        except ImportError as exc:  # pragma: no cover - both are dependencies
            raise ConfigError(
                "database_url names PostgreSQL but psycopg is not installed: "
                "pip install 'psycopg[binary]' psycopg-pool"
            ) from exc
        self.url = url
        self.location = redacted(url)
        self._local = threading.local()
        self._pool: ConnectionPool | None = None
        self._pool_lock = threading.Lock()
        self.write_lock = threading.RLock()
        self._auto = PgConnection(self, None)

    @property
    def pool(self) -> ConnectionPool:
        """The pool, opened on first use (and again after :meth:`close`)."""
        with self._pool_lock:
            if self._pool is None:
                from psycopg_pool import ConnectionPool

                self._pool = ConnectionPool(
                    self.url,
                    min_size=0,  # no connection kept open for a catalog left idle
                    max_size=POOL_SIZE,
                    timeout=POOL_TIMEOUT,
                    kwargs={"autocommit": True, "row_factory": _row_factory},
                    open=True,
                    name="overstory-catalog",
                    num_workers=1,  # background connects only: statements run in callers
                )
            return self._pool

    @property
    def migration_url(self) -> str:
        """The same database through SQLAlchemy's psycopg 3 dialect."""
        return "postgresql+psycopg://" + self.url.split("://", 1)[1]

    @property
    def db(self) -> Connection:
        """The thread's open transaction, or statements each on a pooled connection."""
        held: PgConnection | None = getattr(self._local, "held", None)
        return held if held is not None else self._auto

    @contextmanager
    def _hold(self, begin: str, *, bump: bool) -> Iterator[PgConnection]:
        outer = getattr(self._local, "held", None)
        with self.pool.connection() as conn:
            session = PgConnection(self, conn)
            session.execute(begin)
            try:
                if bump:
                    session.execute("UPDATE catalog_version SET n = n + 1 WHERE id = 1")
                self._local.held = session
                yield session
            except BaseException:
                self._local.held = outer
                conn.execute("ROLLBACK")
                raise
            self._local.held = outer
            session.execute("COMMIT")

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """``BEGIN`` and the ``catalog_version`` row lock … ``COMMIT``."""
        with self.write_lock, self._hold("BEGIN", bump=True) as session:
            yield session

    @contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """A ``REPEATABLE READ`` read-only transaction (nested: the outer one goes on)."""
        if getattr(self._local, "held", None) is not None:
            yield
            return
        with self._hold("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", bump=False):
            yield

    def data_version(self) -> tuple[int, ...]:
        """The ``catalog_version`` counter, bumped by every write transaction."""
        row = self.db.execute("SELECT n FROM catalog_version WHERE id = 1").fetchone()
        return (int(row[0]) if row is not None else 0,)

    def storage_pages(self) -> tuple[int, int, int]:
        """PostgreSQL reuses the space of deleted rows itself: its size, no free pages."""
        row = self.db.execute(
            "SELECT current_setting('block_size')::int, pg_database_size(current_database())"
        ).fetchone()
        size = int(row[0])
        return size, int(row[1]) // size, 0

    def compact(self) -> None:
        """``VACUUM`` (outside a transaction): dead rows' space becomes reusable."""
        self._auto.execute("VACUUM")

    def release_thread(self) -> None:
        """Nothing: a thread holds a connection only inside a transaction."""

    def close(self) -> None:
        """Close the pool (it opens again when the catalog is used again)."""
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()


def redacted(url: str) -> str:
    """The URL without its password, for messages and logs."""
    return re.sub(r"(//[^:/@]+):[^@]*@", r"\1:***@", url)
