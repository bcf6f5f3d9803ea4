"""``/docs`` is served with Swagger UI's files from this service: nothing from a CDN."""

from __future__ import annotations

import re
from pathlib import Path

from indexer.settings import Settings
from tests.http_support import service


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
            served = svc.client.get(asset)
            assert served.status_code == 200, asset
            assert served.content
        assert "/openapi.json" in html
