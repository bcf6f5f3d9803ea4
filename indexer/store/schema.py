"""The catalog's schema version: read cheaply on open, upgraded by Alembic migrations.

The migrations live in ``migrations/versions`` (raw SQL per dialect). Opening a catalog reads
its revision with one query and imports nothing more when it is current; only a catalog that is
behind loads Alembic (and SQLAlchemy). SQLite catalogs upgrade themselves on open, as the
embedded default always has; a PostgreSQL catalog is shared by many processes and is upgraded
once, on purpose, by ``overstory migrate``: opening one that is behind is an error naming it.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from indexer.errors import ConfigError
from indexer.store.backends import Backend, open_backend
from indexer.store.backends.sqlite import SqliteBackend

REVISIONS = ("0001", "0002", "0003", "0004")
HEAD = REVISIONS[-1]


@dataclass(frozen=True, kw_only=True)
class Migration:
    """What one ``migrate`` did."""

    location: str
    dialect: str
    before: str | None  # None: no schema (a new database) or one older than migrations
    after: str

    def to_json(self) -> dict[str, Any]:
        """The migration as ``overstory migrate --json`` prints it."""
        return {
            "database": self.location,
            "dialect": self.dialect,
            "before": self.before,
            "after": self.after,
            "upgraded": self.before != self.after,
        }


def schema_revision(backend: Backend) -> str | None:
    """The Alembic revision the catalog is at, or None when it has none."""
    db = backend.db
    if backend.dialect == "sqlite":
        found = db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'"
        ).fetchone()
    else:
        found = db.execute("SELECT to_regclass('alembic_version')").fetchone()
        found = None if found is None or found[0] is None else found
    if found is None:
        return None
    row = db.execute("SELECT version_num FROM alembic_version").fetchone()
    return None if row is None else str(row[0])


def ensure_current(backend: Backend) -> None:
    """Bring a SQLite catalog up to date; refuse a PostgreSQL one that is not.

    Raises:
        ConfigError: The catalog is behind (PostgreSQL) or newer than this code.
    """
    revision = schema_revision(backend)
    if revision == HEAD:
        return
    _refuse_newer(backend, revision)
    if isinstance(backend, SqliteBackend):
        with _store_lock(backend.path.parent):
            if schema_revision(backend) != HEAD:
                _upgrade(backend, HEAD)
        return
    at = f"is at schema revision {revision}" if revision else "has no Overstory schema"
    raise ConfigError(
        f"the catalog {backend.location} {at}; this version of Overstory needs {HEAD}: run "
        f"`overstory migrate --database-url {backend.location}` once, then start again",
        detail={"schema": revision, "needs": HEAD, "run": "overstory migrate"},
    )


def migrate(location: Path | str, *, revision: str = HEAD) -> Migration:
    """Upgrade the catalog at ``location`` (a SQLite file or a PostgreSQL URL) to ``revision``
    (default: the head, this code's schema)."""
    backend = open_backend(location)
    try:
        before = schema_revision(backend)
        _refuse_newer(backend, before)
        if before != revision:
            if isinstance(backend, SqliteBackend):
                with _store_lock(backend.path.parent):
                    _upgrade(backend, revision)
            else:
                _upgrade(backend, revision)
        return Migration(
            location=backend.location,
            dialect=backend.dialect,
            before=before,
            after=schema_revision(backend) or "",
        )
    finally:
        backend.close()


def _refuse_newer(backend: Backend, revision: str | None) -> None:
    if revision is not None and revision not in REVISIONS:
        raise ConfigError(
            f"the catalog {backend.location} is at schema revision {revision}, newer than this "
            f"version of Overstory knows ({HEAD}): upgrade Overstory",
            detail={"schema": revision, "needs": HEAD},
        )


def _upgrade(backend: Backend, revision: str) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option(
        "script_location", str(resources.files("indexer.store").joinpath("migrations"))
    )
    # configparser reads % as interpolation
    config.set_main_option("sqlalchemy.url", backend.migration_url.replace("%", "%%"))
    command.upgrade(config, revision)


@contextmanager
def _store_lock(folder: Path) -> Iterator[None]:
    """One migrating process per store folder (an ``flock`` of the folder: no lock file, and
    no interference with SQLite's own locks on the catalog file)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
