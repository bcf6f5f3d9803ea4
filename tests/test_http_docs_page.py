"""``/docs`` is served with Swagger UI's files from this service, nothing from a CDN, and renders
the service's OpenAPI 3.1 schema in Chromium: every operation is listed."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from indexer.settings import Settings
from tests.browser_support import chromium, require_chromium, tab
from tests.http_support import served, service


def test_docs_page_loads_nothing_from_elsewhere(tmp_path: Path) -> None:
    with service(Settings(store=tmp_path / "s", embedder="hashing")) as svc:
        r = svc.client.get("/docs")
        assert r.status_code == 200
        html = r.text
        assert not re.search(r"https?://", html), html
        assets = re.findall(r"""(?:src|href)=["']?([^"'\s>]+)""", html)
        assert any(a.endswith(".js") for a in assets) and any(a.endswith(".css") for a in assets)
        for asset in assets:
            assert asset.startswith("/"), asset
            served_asset = svc.client.get(asset)
            assert served_asset.status_code == 200, asset
            assert served_asset.content
        assert "/openapi.json" in html


def test_docs_page_lists_the_operations_in_chromium(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    require_chromium()
    with served(Settings(store=tmp_path / "s", embedder="hashing")) as (svc, server):
        schema = svc.client.get("/openapi.json").json()
        assert schema["openapi"].startswith("3.1")
        paths = set(schema["paths"])
        elsewhere: list[str] = []
        with chromium(sync_api) as browser, tab(browser) as page:
            host = urlsplit(server.url).netloc
            page.on(
                "request",
                lambda req: urlsplit(req.url).netloc != host and elsewhere.append(req.url),
            )
            page.goto(f"{server.url}/docs")
            page.wait_for_selector(".opblock", timeout=30_000)
            listed = set(page.locator(".opblock .opblock-summary-path").all_inner_texts())
            body = page.inner_text("body")
        assert "Unable to render this definition" not in body
        listed = {path.replace("\u200b", "").strip() for path in listed}
        assert "/v1/query" in listed, sorted(listed)
        missing = sorted(paths - listed)
        assert not missing, f"operations the page does not list: {missing}"
        assert not elsewhere, f"the page loaded from elsewhere: {elsewhere}"
