"""``overstory keys create|list|revoke``: API keys of a store."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import click

from api.commands.common import (
    emit_json,
    existing_store,
    handle_errors,
    json_option,
    settings_from,
    store_option,
)
from api.service.actions import record_cli_write
from api.service.keys import ROLES, KeyStore
from indexer.index import open_catalog
from indexer.store.catalog import Catalog


def _key_store(store: Path | None, *, existing: bool = True) -> tuple[KeyStore, Catalog]:
    # keys may be made for a store before anything is ingested into it; listing and revoking
    # are for one that exists (a mistyped --store must not make an empty one)
    settings = existing_store(store) if existing else settings_from(store)
    catalog = open_catalog(settings)
    return KeyStore(catalog), catalog


def _when(ts: float | None) -> str:
    if ts is None:
        return "-"
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M")


@click.group()
def keys() -> None:
    """Manage API keys (stored hashed; a key is shown once, when created)."""


@keys.command()
@click.option("--role", type=click.Choice(ROLES), required=True, help="What the key may do.")
@click.option("--name", default=None, help="Who holds the key (default: role-<key_id>).")
@store_option
@json_option
@handle_errors
def create(role: str, name: str | None, store: Path | None, as_json: bool) -> None:
    """Create a key and print it once: reader < editor < auditor < admin."""
    keystore, catalog = _key_store(store, existing=False)
    key, record = keystore.create(role=role, name=name)
    record_cli_write(catalog, "key.create", created_key_id=record.key_id, role=role)
    if as_json:
        emit_json({"key": key, "role": record.role, "name": record.name, "key_id": record.key_id})
        return
    click.echo(key)
    click.echo(
        f"({record.role} key {record.key_id} '{record.name}'; store it now, it is not shown again)",
        err=True,
    )


@keys.command(name="list")
@store_option
@json_option
@handle_errors
def list_keys(store: Path | None, as_json: bool) -> None:
    """List keys (ids, roles, names; never the keys themselves)."""
    records = _key_store(store)[0].list_keys()
    if as_json:
        emit_json({"keys": [r.to_json() for r in records]})
        return
    for r in records:
        state = "active" if r.active else f"revoked {_when(r.revoked_at)}"
        click.echo(
            f"{r.key_id}  {r.role:8} {r.name}  created {_when(r.created_at)}, "
            f"last used {_when(r.last_used_at)}, {state}"
        )


@keys.command()
@click.argument("key_id")
@store_option
@json_option
@handle_errors
def revoke(key_id: str, store: Path | None, as_json: bool) -> None:
    """Revoke a key by its id (`keys list`), never the key itself; it is refused from then on."""
    keystore, catalog = _key_store(store)
    record = keystore.revoke(key_id)
    record_cli_write(catalog, "key.revoke", revoked_key_id=record.key_id)
    if as_json:
        emit_json({"revoked": record.key_id, **record.to_json()})
    else:
        click.echo(f"revoked {record.key_id} ({record.role}, {record.name})")
