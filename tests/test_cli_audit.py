"""Writes made through the CLI are in the audit log too, with the user who made them."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest

from indexer.index import open_catalog
from indexer.settings import Settings
from tests.helpers import ROOT, catalog_env, run_cli


@pytest.mark.backends
def test_cli_writes_record_an_actor(tmp_path: Path, database_url: str) -> None:
    store = str(tmp_path / "store")
    settings = Settings(store=tmp_path / "store", database_url=database_url)
    hashing = {"OVERSTORY_EMBEDDER": "hashing", **catalog_env(settings)}
    source = str(ROOT / "fixtures" / "pump-x200.md")
    run_cli("ingest", source, "--store", store, "--json", env=hashing)
    run_cli("ingest", source, "--store", store, "--json", env=hashing)  # unchanged: no entry
    _, key, _ = run_cli(
        "keys", "create", "--role", "reader", "--store", store, "--json", env=hashing
    )
    run_cli("keys", "revoke", key["key_id"], "--store", store, "--json", env=hashing)
    run_cli("rm", "pump-x200.md", "--store", store, "--json", env=hashing)
    catalog = open_catalog(settings)
    entries, _ = catalog.reviews.log_page(doc_id=None, limit=50, offset=0)
    actions = [(e["action"], e["doc_id"]) for e in entries]
    assert sorted(actions) == sorted(
        [
            ("document.ingest", "pump-x200.md"),
            ("key.create", ""),
            ("key.revoke", ""),
            ("document.delete", "pump-x200.md"),
        ]
    ), actions
    assert {e["actor"] for e in entries} == {f"cli:{getpass.getuser()}"}
