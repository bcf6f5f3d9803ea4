"""Helpers of the HTTP tests: the real app on a real store, real servers on loopback ports."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI
from fastapi.testclient import TestClient

from api.app import create_app
from api.service.keys import ROLES
from api.service.wiring import Stack
from indexer.index import Index
from indexer.settings import Settings
from retriever import Retriever

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
BIN = Path(sys.executable).parent


def served_operations(app: FastAPI) -> set[tuple[str, str]]:
    """``(METHOD, path template)`` of every operation in the app's OpenAPI schema."""
    ops = {("GET", "/docs"), ("GET", "/openapi.json")}
    for path, item in app.openapi()["paths"].items():
        ops |= {(method.upper(), path) for method in item}
    return ops


def mcp_http_client(headers: dict[str, str] | None = None) -> Any:
    """An HTTP client for the MCP SDK's streamable HTTP transport, configured as its docs say
    (an ``httpx2.AsyncClient``), with the SDK's timeouts: a response stream may stay open."""
    import httpx2

    return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0))


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bearer(key: str) -> dict[str, str]:
    """The Authorization header of an API key."""
    return {"Authorization": f"Bearer {key}"}


@dataclass
class Service:
    """A test client on the real app, with one key per role."""

    app: FastAPI
    client: httpx.Client
    keys: dict[str, str] = field(default_factory=dict)

    def as_role(self, role: str) -> dict[str, str]:
        return bearer(self.keys[role])

    def upload(
        self, name: str, data: bytes, *, role: str = "editor", doc_id: str | None = None
    ) -> httpx.Response:
        form = {"doc_id": doc_id} if doc_id is not None else None
        return self.client.post(
            "/v1/documents", headers=self.as_role(role), files={"file": (name, data)}, data=form
        )

    def wait_job(self, job_id: str, *, timeout: float = 300.0) -> dict[str, Any]:
        """Poll a job over HTTP until it is done or failed."""
        deadline = time.monotonic() + timeout
        while True:
            r = self.client.get(f"/v1/jobs/{job_id}", headers=self.as_role("editor"))
            assert r.status_code == 200, r.text
            job: dict[str, Any] = r.json()
            if job["status"] in ("done", "failed"):
                return job
            assert time.monotonic() < deadline, f"job {job_id} still {job['status']}"
            time.sleep(0.1)

    def ingest(self, name: str, data: bytes, **kw: Any) -> dict[str, Any]:
        r = self.upload(name, data, **kw)
        assert r.status_code == 202, r.text
        job = self.wait_job(r.json()["job_id"])
        assert job["status"] == "done", job
        return job


@contextmanager
def service(settings: Settings, *, index: Index | None = None) -> Iterator[Service]:
    """The app (lifespan run) with a key for every role."""
    stack = Stack(index=index, retriever=Retriever(index)) if index is not None else None
    app = create_app(settings, stack=stack)
    keys = {role: app.state.keys.create(role=role, name=f"test-{role}")[0] for role in ROLES}
    # a loopback Host, as a local client sends it (auth off refuses other hosts)
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
        yield Service(app=app, client=client, keys=keys)


@contextmanager
def served(settings: Settings) -> Iterator[tuple[Service, ThreadServer]]:
    """The app under uvicorn on a loopback port, with an HTTP client and a key for every role."""
    app = create_app(settings)
    keys = {role: app.state.keys.create(role=role, name=f"test-{role}")[0] for role in ROLES}
    with ThreadServer(app) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        yield Service(app=app, client=client, keys=keys), server


class ThreadServer:
    """The real app under uvicorn in a thread on a free loopback port (real sockets)."""

    def __init__(self, app: FastAPI) -> None:
        import uvicorn

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        wait_healthy(self.url)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(60)


def wait_healthy(
    url: str, *, timeout: float = 180.0, proc: subprocess.Popen[bytes] | None = None
) -> None:
    """Wait until ``url``/healthz answers 200."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{url} did not become healthy")


class ServerProcess:
    """``overstory serve`` as a subprocess on a free loopback port."""

    def __init__(self, store: Path, *, env: dict[str, str] | None = None, log: Path) -> None:
        self.store = store
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "OVERSTORY_EMBEDDER": "hashing", **(env or {})}
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> ServerProcess:
        cmd = [
            str(BIN / "overstory"), "serve", "--host", "127.0.0.1", "--port", str(self.port),
            "--store", str(self.store), "--no-access-log",
        ]  # fmt: skip
        out = open(self.log, "ab")  # noqa: SIM115 - the child holds it
        self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=self.env)
        out.close()
        wait_healthy(self.url, proc=self.proc)
        return self

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)


def big_manual(sections: int, *, seed: str = "v1") -> bytes:
    """A long Markdown manual with many numbered sections (slow enough to interrupt)."""
    parts = [f"# Big Manual {seed}\n"]
    for c in range(1, sections // 10 + 2):
        parts.append(f"\n## {c} Chapter {c}\n")
        for s in range(1, 11):
            parts.append(f"\n### {c}.{s} Procedure {c}.{s}\n")
            for p in range(3):
                parts.append(
                    f"Step {p + 1} of procedure {c}.{s}: tighten bolt M{6 + p} to {10 + s + p} Nm "
                    f"unless the gasket G-{c}{s}{p} shows wear; replace it only when the pump is "
                    f"cold. Check valve V{c}.{s} for leaks and record the pressure of "
                    f"{2 + p / 10:.1f} bar in the log ({seed}).\n\n"
                )
    return "".join(parts).encode("utf-8")
