"""``overstory migrate``: bring the catalog's schema up to date (Alembic migrations)."""

from __future__ import annotations

from pathlib import Path

import click

from api.commands.common import emit_json, handle_errors, json_option, settings_from, store_option
from indexer.store.location import catalog_location
from indexer.store.schema import migrate as migrate_catalog


@click.command()
@click.option(
    "--database-url",
    default=None,
    help="postgresql://user@host:port/database (env OVERSTORY_DATABASE_URL; default: the "
    "store's SQLite file).",
)
@store_option
@json_option
@handle_errors
def migrate(database_url: str | None, store: Path | None, as_json: bool) -> None:
    """Upgrade the catalog's schema to this version's (creates it in an empty database).

    A PostgreSQL catalog is migrated by this command, once per upgrade, before the servers and
    workers of the new version start; a SQLite catalog also migrates itself when it is opened.
    """
    overrides = {"database_url": database_url} if database_url is not None else {}
    settings = settings_from(store, **overrides)
    done = migrate_catalog(catalog_location(settings))
    if as_json:
        emit_json(done.to_json())
    elif done.before == done.after:
        click.echo(f"{done.location}: schema already at revision {done.after}")
    else:
        click.echo(f"{done.location}: schema upgraded from {done.before or 'none'} to {done.after}")
