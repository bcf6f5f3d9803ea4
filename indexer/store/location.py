"""Where the settings put the catalog: a PostgreSQL database, or the store folder's SQLite file."""

from __future__ import annotations

from pathlib import Path

from indexer.settings import Settings

CATALOG_FILE = "overstory.db"


def catalog_location(settings: Settings) -> Path | str:
    """The catalog the settings name: ``database_url``, or the SQLite file in the store."""
    return settings.database_url or settings.store / CATALOG_FILE


def has_catalog(settings: Settings) -> bool:
    """Whether the settings name a catalog that exists already (a database server's is
    assumed to: opening it says when it does not)."""
    return bool(settings.database_url) or (settings.store / CATALOG_FILE).is_file()
