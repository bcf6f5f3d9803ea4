"""Catalog database engines behind one interface (:class:`~indexer.store.backends.base.Backend`).

``open_backend`` picks one by location: a ``postgresql://`` URL is PostgreSQL (psycopg 3 and a
connection pool), anything else the path of a SQLite file (the embedded default).
"""

from __future__ import annotations

from pathlib import Path

from indexer.errors import ConfigError
from indexer.store.backends.base import Backend, Connection, Cursor, Row

__all__ = ["Backend", "Connection", "Cursor", "Row", "is_postgres_url", "open_backend"]

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(location: Path | str) -> bool:
    """Whether ``location`` names a PostgreSQL database."""
    return isinstance(location, str) and location.startswith(POSTGRES_SCHEMES)


def open_backend(location: Path | str) -> Backend:
    """The backend of a SQLite file path or a PostgreSQL URL.

    Raises:
        ConfigError: ``location`` is a URL of another engine.
    """
    if is_postgres_url(location):
        from indexer.store.backends.postgres import PostgresBackend

        return PostgresBackend(str(location))
    if isinstance(location, str) and "://" in location:
        raise ConfigError(
            f"database_url {location.split('://')[0]}://… is not supported: use "
            "postgresql://user@host:port/database, or leave it empty for the store's SQLite file"
        )
    from indexer.store.backends.sqlite import SqliteBackend

    return SqliteBackend(Path(location))
