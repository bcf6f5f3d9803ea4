"""API keys: the CLI, hashed storage, cumulative roles, the explicit development mode."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from api.app import create_app
from api.cli import main
from api.commands.serve import _bootstrap_key
from api.service.keys import ROLES, role_allows
from indexer.errors import ConfigError
from indexer.index import Index
from indexer.settings import Settings
from tests.helpers import catalog_env
from tests.http_support import bearer, service


def _cli(*args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    result = CliRunner().invoke(main, list(args), env=env)
    assert result.exit_code == 0, result.output
    out: dict[str, object] = json.loads(result.stdout)
    return out


@pytest.mark.backends
def test_keys_cli_create_list_revoke(tmp_path: Path, database_url: str) -> None:
    store = tmp_path / "store"
    settings = Settings(store=store, embedder="hashing", database_url=database_url)
    env = catalog_env(settings)
    created = _cli(
        "keys", "create", "--role", "reader", "--name", "chatbot", "--store", str(store), "--json",
        env=env,
    )  # fmt: skip
    assert set(created) >= {"key", "role", "name"}
    assert created["role"] == "reader" and created["name"] == "chatbot"
    key = str(created["key"])
    assert key.startswith("ovs_")

    listed = _cli("keys", "list", "--store", str(store), "--json", env=env)
    (record,) = listed["keys"]  # type: ignore[misc]
    assert record["role"] == "reader" and record["active"] is True
    assert key not in json.dumps(listed)

    with service(settings) as svc:
        assert svc.client.get("/v1/documents", headers=bearer(key)).status_code == 200
        assert svc.client.delete("/v1/documents/x.md", headers=bearer(key)).status_code == 403
        revoked = _cli("keys", "revoke", record["key_id"], "--store", str(store), "--json", env=env)
        assert revoked["revoked"] == record["key_id"]
        # A running service refuses the key at once.
        assert svc.client.get("/v1/documents", headers=bearer(key)).status_code == 401


def test_keys_cli_refuses_an_unknown_role(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["keys", "create", "--role", "root", "--store", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "root" in result.output


def test_keys_are_stored_hashed(tmp_path: Path) -> None:
    store = tmp_path / "store"
    key = str(_cli("keys", "create", "--role", "admin", "--store", str(store), "--json")["key"])
    raw = (store / "overstory.db").read_bytes()
    db = sqlite3.connect(store / "overstory.db")
    rows = db.execute("SELECT * FROM api_keys").fetchall()
    assert rows and key not in repr(rows)
    assert key.encode() not in raw
    assert key.split("_")[-1].encode() not in raw


def test_roles_are_cumulative() -> None:
    for i, have in enumerate(ROLES):
        for j, need in enumerate(ROLES):
            assert role_allows(have, need) == (i >= j)


def test_auth_off_is_explicit_loud_and_loopback_only(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(store=tmp_path / "s", embedder="hashing", auth="off")
    with caplog.at_level(logging.WARNING), service(settings) as svc:
        r = svc.client.get("/v1/keys")
        assert r.status_code == 200
    assert any("AUTH IS OFF" in rec.getMessage() for rec in caplog.records)
    with pytest.raises(ConfigError, match="local development only"):
        create_app(Settings(store=tmp_path / "t", auth="off", host="0.0.0.0"))


def test_default_settings_need_keys(tmp_path: Path) -> None:
    with service(Settings(store=tmp_path / "s", embedder="hashing")) as svc:
        assert svc.client.get("/v1/documents").status_code == 401


@pytest.mark.backends
def test_serve_bootstraps_an_admin_key_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], database_url: str
) -> None:
    settings = Settings(store=tmp_path / "s", embedder="hashing", database_url=database_url)
    index = Index(settings)
    _bootstrap_key(settings, index)
    printed = capsys.readouterr().err
    path = settings.store / "bootstrap-admin.key"
    assert str(path) in printed
    assert (path.stat().st_mode & 0o777) == 0o600
    key = path.read_text().strip()
    # ovs_<key_id>_<secret>; the secret itself may contain "_"
    secret = key.split("_", 2)[2]
    assert key.startswith("ovs_") and key not in printed and secret not in printed
    with service(settings, index=index) as svc:
        assert svc.client.get("/v1/keys", headers=bearer(key)).status_code == 200
    _bootstrap_key(settings, index)
    assert "ovs_" not in capsys.readouterr().err
