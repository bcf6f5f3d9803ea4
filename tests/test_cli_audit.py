"""Writes made through the CLI are in the audit log too, with the user who made them."""

from __future__ import annotations

import getpass
from pathlib import Path

from indexer.store.catalog import Catalog
from tests.helpers import ROOT, run_cli

HASHING = {"OVERSTORY_EMBEDDER": "hashing"}


def test_cli_writes_record_an_actor(tmp_path: Path) -> None:
    store = str(tmp_path / "store")
    source = str(ROOT / "fixtures" / "pump-x200.md")
    run_cli("ingest", source, "--store", store, "--json", env=HASHING)
    run_cli("ingest", source, "--store", store, "--json", env=HASHING)  # unchanged: no entry
    _, key, _ = run_cli("keys", "create", "--role", "reader", "--store", store, "--json")
    run_cli("keys", "revoke", key["key_id"], "--store", store, "--json")
    run_cli("rm", "pump-x200.md", "--store", store, "--json", env=HASHING)
    catalog = Catalog(tmp_path / "store" / "overstory.db")
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
