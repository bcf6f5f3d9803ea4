"""The catalog database: one backend (SQLite or PostgreSQL), its schema brought up to date.

Only ``indexer/store/`` speaks SQL. Every table's access class takes a :class:`Database` and
reads through :meth:`Database.db` or writes inside :meth:`Database.write`. Statements are
written once for both engines: ``?`` placeholders, ``INSERT … ON CONFLICT``, ``RETURNING``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from indexer.errors import ConfigError, UnavailableError
from indexer.store.backends import Connection, Row, open_backend
from indexer.store.schema import ensure_current

# SQLite's default limit on host parameters is 999 on old builds; 500 leaves room for others.
CHUNK = 500


class Database:
    """A catalog database (a SQLite file path or a ``postgresql://`` URL), schema current."""

    def __init__(self, location: Path | str) -> None:
        """Open (or create) the catalog and check or upgrade its schema.

        Raises:
            ConfigError: The file is not a SQLite database, or a PostgreSQL catalog's schema is
                not the one this code needs (``overstory migrate``).
            UnavailableError: The database cannot be opened (permissions, a folder in its
                place, a server that does not answer).
        """
        self.backend = open_backend(location)
        self.dialect = self.backend.dialect
        try:
            ensure_current(self.backend)
        except sqlite3.OperationalError as exc:
            self.close()
            raise UnavailableError(f"cannot open the catalog {location}: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            self.close()
            raise ConfigError(
                f"{location} is not an Overstory catalog ({exc}): is --store the right folder? "
                "Move the file away to start an empty store there"
            ) from exc
        except BaseException:
            self.close()
            raise

    @property
    def location(self) -> str:
        """Where the catalog is: the file, or the URL without its password."""
        return self.backend.location

    @property
    def db(self) -> Connection:
        """This thread's connection (inside a transaction: that transaction's)."""
        return self.backend.db

    def write(self) -> AbstractContextManager[Connection]:
        """One write transaction, rolled back on error; writers wait for each other."""
        return self.backend.write()

    def read_snapshot(self) -> AbstractContextManager[None]:
        """One read transaction: every read inside sees the same committed state."""
        return self.backend.read_snapshot()

    def data_version(self) -> tuple[int, ...]:
        """Changes when anything was committed: by another connection or by this one."""
        return self.backend.data_version()

    def release_thread(self) -> None:
        """Give back this thread's connection (a worker thread between two jobs)."""
        self.backend.release_thread()

    def close(self) -> None:
        """Close this thread's connection (SQLite) or the connection pool (PostgreSQL)."""
        self.backend.close()

    def rows_in(
        self,
        sql: str,
        values: Iterable[Any],
        params: Sequence[Any] = (),
    ) -> Iterator[Row]:
        """Rows of ``sql`` for every value, ``{marks}`` in ``sql`` standing for ``IN (…)``.

        The values are deduplicated and queried in chunks of :data:`CHUNK`; ``params`` come
        after the chunk's values.
        """
        unique = list(dict.fromkeys(values))
        for i in range(0, len(unique), CHUNK):
            chunk = unique[i : i + CHUNK]
            marks = ",".join("?" * len(chunk))
            yield from self.db.execute(sql.format(marks=marks), (*chunk, *params))
