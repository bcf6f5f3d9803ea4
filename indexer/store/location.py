"""Where the settings put the catalog: a PostgreSQL database, or the store folder's SQLite file."""

from __future__ import annotations

from pathlib import Path

from indexer.errors import NotFoundError
from indexer.settings import Settings
from indexer.store.catalog import Catalog

CATALOG_FILE = "overstory.db"


def catalog_location(settings: Settings) -> Path | str:
    """The catalog the settings name: ``database_url``, or the SQLite file in the store."""
    return settings.database_url or settings.store / CATALOG_FILE


def has_catalog(settings: Settings) -> bool:
    """Whether the settings name a catalog that exists already (a database server's is
    assumed to: opening it says when it does not)."""
    return bool(settings.database_url) or (settings.store / CATALOG_FILE).is_file()


def open_catalog(settings: Settings) -> Catalog:
    """The catalog of the store named by the settings."""
    return Catalog(catalog_location(settings))


def require_store(settings: Settings) -> None:
    """NotFoundError unless the settings name an existing store (a folder with a catalog):
    commands that only read must not create an empty store for a mistyped path."""
    if not has_catalog(settings):
        raise NotFoundError(
            f"no Overstory store at {settings.store} (it has no {CATALOG_FILE}): check --store "
            "or OVERSTORY_STORE, or create it with overstory ingest PATH"
        )
