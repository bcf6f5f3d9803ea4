"""Key secrets stay out of logs and URLs; every write is in the audit log with the acting key."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.service.keys import KeyStore
from indexer.errors import NotFoundError
from indexer.settings import Settings
from indexer.store.catalog import Catalog
from tests.http_support import BIN, Service, bearer, free_port, service, wait_healthy
from tests.test_error_shape import assert_canonical

DOC = b"# Pump\n\n## 1 Seals\n\nReplace the seal kit every 500 hours of operation.\n"


@pytest.fixture
def serve_process(tmp_path: Path) -> Iterator[tuple[str, Path, Path]]:
    """``overstory serve`` on a new store with its access log on; (url, store, log file)."""
    store, log = tmp_path / "store", tmp_path / "serve.log"
    port = free_port()
    cmd = [
        str(BIN / "overstory"), "serve", "--host", "127.0.0.1", "--port", str(port),
        "--store", str(store), "--access-log",
    ]  # fmt: skip
    env = {**os.environ, "OVERSTORY_EMBEDDER": "hashing"}
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc=proc)
        yield f"http://127.0.0.1:{port}", store, log
    finally:
        proc.terminate()
        proc.wait(60)


def test_no_secret_reaches_the_server_log(serve_process: tuple[str, Path, Path]) -> None:
    url, store, log = serve_process
    key_file = store / "bootstrap-admin.key"
    assert (key_file.stat().st_mode & 0o777) == 0o600
    admin = key_file.read_text().strip()
    with httpx.Client(base_url=url, headers=bearer(admin), timeout=60) as client:
        created = client.post("/v1/keys", json={"role": "reader", "name": "r"}).json()
        secret = created["key"]
        for path in (f"/v1/keys/{secret}", f"/v1/keys/{secret}?again={secret}"):
            r = client.delete(path)
            assert r.status_code in (404, 422), r.text
            assert_canonical(r.json(), r.json()["error"]["code"])
            assert secret not in r.text
        assert client.get("/v1/documents", headers=bearer(secret)).status_code == 200
        r = client.delete(f"/v1/keys/{created['key_id']}")
        assert r.status_code == 200, r.text
        assert r.json()["key_id"] == created["key_id"] and r.json()["active"] is False
        assert client.get("/v1/documents", headers=bearer(secret)).status_code == 401
    text = log.read_text()
    assert str(key_file) in text
    assert f"DELETE /v1/keys/{created['key_id']}" in text  # the access log is on
    # the random part of a key (after "ovs_<id>_"; it may itself hold "_")
    for leaked in (admin, secret, admin.split("_", 2)[2], secret.split("_", 2)[2]):
        assert leaked not in text


def _encodings(secret: str) -> list[str]:
    """The key as a client may put it in a URL: percent-encoded in part, in full, twice."""
    full = "".join(f"%{b:02X}" for b in secret.encode())
    return [
        secret.replace("_", "%5F"),
        secret.replace("_", "%5f"),
        full,
        full.lower(),
        secret.replace("_", "%255F"),
    ]


def test_no_encoded_secret_reaches_the_server_log(serve_process: tuple[str, Path, Path]) -> None:
    url, store, log = serve_process
    admin = (store / "bootstrap-admin.key").read_text().strip()
    with httpx.Client(base_url=url, timeout=60) as client:
        made = client.post("/v1/keys", json={"role": "reader"}, headers=bearer(admin))
        secret = made.json()["key"]
        for encoded in _encodings(secret):
            for path in (
                f"/v1/keys/{encoded}",
                f"/v1/documents/{encoded}/tree",
                f"/v1/documents?key={encoded}",
                f"/v1/nothing/{encoded}?a=1&b={encoded}",
            ):
                r = client.get(path, headers=bearer(secret))
                assert r.status_code in (404, 405, 422), (path, r.text)
            client.get("/v1/documents", headers=bearer(encoded))
            client.get("/v1/documents", headers={**bearer(secret), "X-Forwarded-For": encoded})
        client.get("/v1/documents", headers={"X-Forwarded-For": secret})
        assert client.get("/healthz").status_code == 200
    text = log.read_text()
    assert "GET /v1/keys/ovs" in text  # the access log is on and logged those requests
    random_part = secret.split("_", 2)[2]
    for leaked in (secret, random_part, *_encodings(secret), *_encodings(random_part)):
        assert leaked not in text, leaked


def test_the_store_revokes_by_id_only(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "overstory.db")
    try:
        store = KeyStore(catalog)
        secret, record = store.create(role="reader")
        with pytest.raises(NotFoundError) as caught:
            store.revoke(secret)
        assert secret not in str(caught.value)
        assert store.get(record.key_id).active
        assert not store.revoke(record.key_id).active
    finally:
        catalog.close()


def _key_id(secret: str) -> str:
    return secret.split("_")[1]


def _log(svc: Service) -> list[dict[str, Any]]:
    r = svc.client.get("/v1/audit/log?limit=100", headers=svc.as_role("auditor"))
    assert r.status_code == 200, r.text
    entries: list[dict[str, Any]] = r.json()["entries"]
    return entries[::-1]


def _summarized_node(tree: dict[str, Any]) -> str:
    stack = [tree]
    while stack:
        node = stack.pop()
        if node["level"] != "passage" and node.get("summary"):
            return str(node["node_id"])
        stack.extend(node["children"])
    raise AssertionError("no summarized node")


@pytest.mark.backends
def test_every_write_records_the_acting_key(fast_settings: Settings) -> None:
    with service(fast_settings) as svc:
        editor, admin, auditor = (_key_id(svc.keys[r]) for r in ("editor", "admin", "auditor"))
        svc.ingest("pump.md", DOC)
        tree = svc.client.get("/v1/documents/pump.md/tree", headers=svc.as_role("reader")).json()
        r = svc.client.post(
            f"/v1/nodes/{_summarized_node(tree)}/review",
            json={"status": "approved"},
            headers=svc.as_role("auditor"),
        )
        assert r.status_code == 201, r.text
        made = svc.client.post("/v1/keys", json={"role": "reader"}, headers=svc.as_role("admin"))
        new_id = made.json()["key_id"]
        svc.client.delete(f"/v1/keys/{new_id}", headers=svc.as_role("admin"))
        r = svc.client.delete("/v1/documents/pump.md", headers=svc.as_role("editor"))
        assert r.status_code == 200
        entries = _log(svc)
    got = [(e["action"], e["doc_id"], e["detail"]["key_id"]) for e in entries]
    assert got == [
        ("document.upload", "pump.md", editor),
        ("review.approved", "pump.md", auditor),
        ("key.create", "", admin),
        ("key.revoke", "", admin),
        ("document.delete", "pump.md", editor),
    ]
    assert [e["actor"] for e in entries if not e["action"].startswith("review.")] == [
        editor,
        admin,
        admin,
        editor,
    ]
    assert entries[2]["detail"]["created"] == new_id
    assert entries[3]["detail"]["revoked"] == new_id
    assert "key" not in entries[2]["detail"]  # never the secret


def test_with_auth_off_the_actor_is_local(tmp_path: Path) -> None:
    settings = Settings(store=tmp_path / "s", embedder="hashing", auth="off")
    with service(settings) as svc:
        svc.ingest("pump.md", DOC)
        entries = _log(svc)
    assert [(e["action"], e["actor"], e["detail"]["key_id"]) for e in entries] == [
        ("document.upload", "local", "local")
    ]
