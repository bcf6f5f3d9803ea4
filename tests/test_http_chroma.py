"""Chroma server mode: with ``chroma_url`` set the service keeps its vectors in a real
``chroma run`` server, started here on a free loopback port and stopped afterwards."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from indexer.settings import Settings
from tests.http_support import BIN, FIXTURES, free_port, service

CHROMA = BIN / "chroma"


class ChromaServer:
    """``chroma run`` on 127.0.0.1 with its data in a temp folder."""

    def __init__(self, path: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = path.parent / "chroma.log"
        cmd = [
            str(CHROMA),
            "run",
            "--path",
            str(path),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
        ]
        env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
        self._wait()

    def _wait(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"chroma exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/api/v2/heartbeat", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise TimeoutError("chroma did not answer its heartbeat")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)


@pytest.fixture
def chroma(tmp_path: Path) -> Iterator[ChromaServer]:
    if not CHROMA.exists():
        pytest.skip(f"the chroma CLI is not installed at {CHROMA}")
    server = ChromaServer(tmp_path / "chroma-data")
    yield server
    server.stop()


def test_the_service_uses_a_chroma_server(tmp_path: Path, chroma: ChromaServer) -> None:
    store = tmp_path / "store"
    settings = Settings(store=store, embedder="hashing", chroma_url=chroma.url)
    with service(settings) as svc:
        health = svc.client.get("/healthz").json()
        assert health["vector_store"] == "chroma-server"
        job = svc.ingest("pump-x200.md", (FIXTURES / "pump-x200.md").read_bytes())
        (doc,) = job["report"]["documents"]
        index = svc.app.state.index
        check = index.check()
        assert check["consistent"] and check["vectors_stored"] > 0
        assert not (store / "chroma").exists(), "the embedded store must not be used"
        # The vectors are in the server: a separate client sees them.
        import chromadb

        client = chromadb.HttpClient(host="127.0.0.1", port=chroma.port)
        assert client.get_collection("overstory").count() == check["vectors_stored"]
        tree = svc.client.get("/v1/documents/pump-x200.md/tree", headers=svc.as_role("reader"))
        assert tree.status_code == 200
        assert doc["passages"] == sum(1 for _ in _passages(tree.json()))

        r = svc.client.delete("/v1/documents/pump-x200.md", headers=svc.as_role("editor"))
        assert r.status_code == 200
        assert client.get_collection("overstory").count() == 0

        # Without its vector store the service says so, in the canonical body.
        chroma.stop()
        r = svc.client.get("/healthz")
        assert r.status_code == 503
        error = r.json()["error"]
        assert error["code"] == "unhealthy" and "vectors" in error["detail"]


def _passages(node: dict[str, object]) -> Iterator[object]:
    if node["level"] == "passage":
        yield node
    for child in node["children"]:  # type: ignore[attr-defined]
        yield from _passages(child)
