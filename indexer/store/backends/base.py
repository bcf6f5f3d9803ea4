"""What the catalog asks of a database engine: connections, transactions, a data version.

Both backends take the same SQL (``?`` placeholders, ``INSERT … ON CONFLICT``, ``RETURNING``);
only what must differ between engines lives in a backend module: the driver, how a write
transaction starts, how a commit is noticed, what the schema's types are called.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Literal, Protocol

Dialect = Literal["sqlite", "postgresql"]


class Row(Protocol):
    """One result row: by column name (``row["col"]``), by position (``row[0]``), ``keys()``."""

    def __getitem__(self, key: int | str, /) -> Any: ...

    def keys(self) -> list[str]: ...

    def __iter__(self) -> Iterator[Any]: ...

    def __len__(self) -> int: ...


class Cursor(Protocol):
    """The result of one statement."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """Where statements run: this thread's connection, or its open transaction."""

    def execute(self, sql: str, params: Sequence[Any] = (), /) -> Cursor: ...

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> Cursor: ...


class Backend(ABC):
    """One catalog database: statements, write transactions, read snapshots, a data version.

    Driver errors leave a backend as :class:`~indexer.errors.CatalogUnavailableError` (the
    engine does not answer) or :class:`~indexer.errors.CatalogIntegrityError` (a constraint
    refused a write); anything else is a bug and keeps its own type.
    """

    dialect: Dialect
    location: str  # a file path or a URL without its password, for messages

    @property
    @abstractmethod
    def migration_url(self) -> str:
        """The SQLAlchemy URL Alembic migrates this database through."""

    @property
    @abstractmethod
    def db(self) -> Connection:
        """This thread's connection (inside a transaction: that transaction's)."""

    @abstractmethod
    def write(self) -> AbstractContextManager[Connection]:
        """One write transaction, committed at the end, rolled back on error; writers wait for
        each other (the engine's write lock), readers do not wait for them."""

    @abstractmethod
    def read_snapshot(self) -> AbstractContextManager[None]:
        """One read transaction: every read inside sees the same committed state."""

    @abstractmethod
    def data_version(self) -> tuple[int, ...]:
        """A value that changes whenever anything was committed, by anyone."""

    @abstractmethod
    def storage_pages(self) -> tuple[int, int, int]:
        """Page size, page count and free pages of the database's storage."""

    @abstractmethod
    def compact(self) -> None:
        """Give free storage back to the file system where the engine can."""

    @abstractmethod
    def release_thread(self) -> None:
        """Give back what this thread holds (a thread about to end or go idle calls it)."""

    @abstractmethod
    def close(self) -> None:
        """Close the catalog for this process: SQLite this thread's connection, PostgreSQL the
        whole pool (it opens again on the next statement)."""
