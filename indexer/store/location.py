"""Where the settings put the catalog: a PostgreSQL database, or the store folder's SQLite file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from indexer.errors import NotFoundError
from indexer.store.catalog import Catalog
from indexer.store_folder import plain_store

if TYPE_CHECKING:
    from indexer.settings import Settings

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
        raise _no_store(settings.store)


def _no_store(folder: Path) -> NotFoundError:
    return NotFoundError(
        f"no Overstory store at {folder} (it has no {CATALOG_FILE}): check --store "
        "or OVERSTORY_STORE, or create it with overstory ingest PATH"
    )


def existing_catalog(store: Path | None) -> Catalog:
    """The catalog of an existing store for a command that only reads it (``store``: its
    ``--store`` option); the settings are loaded only when more than the store is configured.

    Raises:
        NotFoundError: No store there.
        ConfigError: A setting is invalid.
    """
    folder = plain_store(store)
    if folder is None:
        from indexer.settings import load_settings

        settings = load_settings(store=store)
        require_store(settings)
        return open_catalog(settings)
    if not (folder / CATALOG_FILE).is_file():
        raise _no_store(folder)
    return Catalog(folder / CATALOG_FILE)
