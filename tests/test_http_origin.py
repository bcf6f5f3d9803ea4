"""With auth off: no writes from other origins (CSRF), no foreign Host names (DNS rebinding)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from api.app import create_app
from indexer.settings import Settings
from tests.http_support import ThreadServer
from tests.test_error_shape import assert_canonical

DOC = b"# Pump\n\n## 1 Seals\n\nReplace the seal kit every 500 hours of operation.\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    store = tmp_path_factory.mktemp("origin") / "store"
    settings = Settings(store=store, embedder="hashing", auth="off")
    with ThreadServer(create_app(settings)) as srv:
        yield srv


def _upload(srv: ThreadServer, headers: dict[str, str], doc_id: str = "pump.md") -> httpx.Response:
    return httpx.post(
        f"{srv.url}/v1/documents",
        files={"file": ("pump.md", DOC)},
        data={"doc_id": doc_id},
        headers=headers,
        timeout=30,
    )


def _jobs(srv: ThreadServer) -> list[dict[str, object]]:
    jobs: list[dict[str, object]] = httpx.get(f"{srv.url}/v1/jobs", timeout=30).json()["jobs"]
    return jobs


FOREIGN = [
    {"Origin": "http://evil.example"},
    {"Origin": "null"},
    {"Origin": "http://127.0.0.1:1"},  # another port is another origin
    {"Origin": "https://127.0.0.1"},
    {"Referer": "http://evil.example/page.html"},
]


@pytest.mark.parametrize("headers", FOREIGN, ids=[str(h) for h in FOREIGN])
def test_a_write_from_another_origin_is_refused(
    server: ThreadServer, headers: dict[str, str]
) -> None:
    before = len(_jobs(server))
    r = _upload(server, headers)
    assert r.status_code == 403, r.text
    assert_canonical(r.json(), "forbidden_origin")
    r = httpx.delete(f"{server.url}/v1/keys/0123abcd", headers=headers, timeout=30)
    assert r.status_code == 403, r.text
    assert len(_jobs(server)) == before


def test_a_foreign_host_is_refused_for_every_request(server: ThreadServer) -> None:
    before = len(_jobs(server))
    for method, path in (("GET", "/v1/documents"), ("GET", "/healthz"), ("GET", "/docs")):
        r = httpx.request(
            method, f"{server.url}{path}", headers={"Host": "rebind.evil.example"}, timeout=30
        )
        assert r.status_code == 403, (path, r.text)
        error = assert_canonical(r.json(), "forbidden_origin")
        assert "rebind.evil.example" in error["message"]
    r = _upload(server, {"Host": f"rebind.evil.example:{server.port}"})
    assert r.status_code == 403
    assert len(_jobs(server)) == before


def test_same_origin_and_clients_without_origin_keep_working(server: ThreadServer) -> None:
    own = server.url
    before = len(_jobs(server))
    assert _upload(server, {}).status_code == 202  # the CLI, curl: no Origin, no Referer
    assert _upload(server, {"Origin": own}, doc_id="b.md").status_code == 202
    assert _upload(server, {"Referer": f"{own}/docs"}, doc_id="c.md").status_code == 202
    localhost = f"http://localhost:{server.port}"
    r = _upload(server, {"Host": f"localhost:{server.port}", "Origin": localhost}, doc_id="d.md")
    assert r.status_code == 202, r.text
    # a read from another origin is not a write (the browser keeps the answer from the page)
    r = httpx.get(f"{own}/v1/documents", headers={"Origin": "http://evil.example"}, timeout=30)
    assert r.status_code == 200
    assert len(_jobs(server)) == before + 4


def test_allowed_hosts_setting_admits_a_named_host(tmp_path: Path) -> None:
    settings = Settings(
        store=tmp_path / "s", embedder="hashing", auth="off", allowed_hosts=["devbox.lan"]
    )
    with ThreadServer(create_app(settings)) as srv:
        ok = httpx.get(f"{srv.url}/v1/documents", headers={"Host": "devbox.lan:8000"}, timeout=30)
        assert ok.status_code == 200
        assert httpx.get(f"{srv.url}/v1/documents", timeout=30).status_code == 200
        other = httpx.get(f"{srv.url}/v1/documents", headers={"Host": "other.lan"}, timeout=30)
        assert other.status_code == 403


def test_with_keys_the_origin_checks_do_not_apply(tmp_path: Path) -> None:
    settings = Settings(store=tmp_path / "s", embedder="hashing")
    with ThreadServer(create_app(settings)) as srv:
        r = httpx.get(f"{srv.url}/healthz", headers={"Host": "api.example.com"}, timeout=30)
        assert r.status_code == 200
