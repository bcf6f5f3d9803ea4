"""Bad input and limits: each refused with a clear 4xx, the index untouched, the service fine."""

from __future__ import annotations

import fcntl
import os
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from indexer.settings import Settings
from tests.http_support import FIXTURES, Service, served, service

VALID = (FIXTURES / "pump-x200.md").read_bytes()
LIMIT = 200_000


pytestmark = pytest.mark.backends


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, module_database_url: str) -> Iterator[Service]:
    store = tmp_path_factory.mktemp("uploads") / "store"
    settings = Settings(
        store=store,
        embedder="hashing",
        max_document_bytes=LIMIT,
        max_k=20,
        database_url=module_database_url,
    )
    with service(settings) as s:
        s.ingest("pump-x200.md", VALID)
        yield s


def _state(svc: Service) -> dict[str, Any]:
    index = svc.app.state.index
    uploads = sorted(p.name for p in (index.settings.store / "uploads").iterdir())
    return {
        "documents": [(d["doc_id"], d["revision"]) for d in index.documents()],
        "jobs": svc.app.state.jobs.store.counts(),
        "vectors": index.vectors.count(),
        "uploads": uploads,
    }


BAD = [
    # name, doc_id, content, status, code, words of the message
    ("empty.md", None, b"", 400, "bad_input", "empty"),
    (
        "blob.txt",
        None,
        os.urandom(4096).replace(b"\x00", b"") + b"\x00",
        400,
        "bad_input",
        "binary",
    ),
    (
        "manual.pdf",
        None,
        b"%PDF-1.4\n1 0 obj << /Type /Catalog >>\ngarbage",
        422,
        "parse_error",
        "PDF",
    ),
    ("manual.md.gz", None, b"not gzip at all", 422, "parse_error", "gzip"),
    ("spaces.html", None, b"   \n\t  ", 400, "bad_input", "whitespace"),
    (
        "too-big.md",
        None,
        b"# Big\n\n" + b"word " * (LIMIT // 5 + 10),
        413,
        "too_large",
        "max_document_bytes",
    ),
    ("../../etc/passwd.md", None, b"# x\n\ntext\n", 422, "invalid_request", ".."),
    ("ok.md", "../outside.md", b"# x\n\ntext\n", 422, "invalid_request", ".."),
    ("ok.md", "/etc/absolute.md", b"# x\n\ntext\n", 422, "invalid_request", "relative"),
    ("manual.docx", None, b"PK\x03\x04 a word file", 415, "unsupported_format", ".docx"),
    ("no-extension", None, b"# x\n\ntext\n", 415, "unsupported_format", "unsupported file type"),
]


@pytest.mark.parametrize(
    ("name", "doc_id", "content", "status", "code", "words"),
    BAD,
    ids=[b[0] + (b[1] or "") for b in BAD],
)
def test_bad_upload_is_refused_and_changes_nothing(
    svc: Service, name: str, doc_id: str | None, content: bytes, status: int, code: str, words: str
) -> None:
    before = _state(svc)
    r = svc.upload(name, content, doc_id=doc_id)
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["code"] == code
    assert words in error["message"], error["message"]
    assert _state(svc) == before
    assert svc.app.state.index.check()["consistent"]


def test_a_valid_upload_after_bad_ones_succeeds(svc: Service) -> None:
    svc.upload("empty.md", b"")
    svc.upload("manual.pdf", b"%PDF-1.4 garbage")
    job = svc.ingest("after.md", b"# After\n\n## Part\n\nA valid manual after bad uploads.\n")
    assert job["report"]["documents"][0]["status"] == "new"


def test_a_body_over_the_limit_is_refused_before_it_is_read(svc: Service) -> None:
    r = svc.client.post(
        "/v1/documents",
        headers={**svc.as_role("editor"), "content-type": "multipart/form-data; boundary=x"},
        content=b"x" * (LIMIT + 1024 * 1024 + 1),
    )
    assert r.status_code == 413
    assert "max_document_bytes" in r.json()["error"]["message"]


def test_missing_file_field_is_422(svc: Service) -> None:
    r = svc.client.post("/v1/documents", headers=svc.as_role("editor"), data={"doc_id": "x.md"})
    assert r.status_code == 422
    assert r.json()["error"]["message"].startswith("body.file:")


def test_unauthenticated_upload_is_401_before_the_body(svc: Service) -> None:
    r = svc.client.post("/v1/documents", files={"file": ("a.md", b"# a\n\ntext\n")})
    assert r.status_code == 401


def test_query_limits_apply_to_query_and_select(tmp_path: Path) -> None:
    """``max_query_chars`` and ``max_k`` hold on both routes, with the limit in the detail."""
    settings = Settings(store=tmp_path / "s", embedder="hashing", max_query_chars=50, max_k=10)
    with service(settings) as s:
        s.ingest("pump-x200.md", VALID)
        reader = s.as_role("reader")
        ok = s.client.post("/v1/query", headers=reader, json={"query": "q", "k": 10})
        assert ok.status_code == 200, ok.text
        long = s.client.post("/v1/query", headers=reader, json={"query": "q" * 51})
        assert long.status_code == 422
        assert "max_query_chars" in long.json()["error"]["message"]
        assert long.json()["error"]["detail"] == {"field": "query", "limit": 50, "length": 51}
        assert s.client.post("/v1/select", headers=reader, json={"k": 10}).status_code == 200
        for route in ("/v1/query", "/v1/select"):
            for k in (11, 0, -1):
                body = {"query": "seal", "k": k} if route == "/v1/query" else {"k": k}
                big = s.client.post(route, headers=reader, json=body)
                assert big.status_code == 422, (route, k)
                error = big.json()["error"]
                assert error["detail"] == {"field": "k", "limit": 10}, (route, k)
                assert "max_k" in error["message"]


def test_query_limits_on_the_real_query_route(svc: Service) -> None:
    r = svc.client.post("/v1/query", headers=svc.as_role("reader"), json={"query": "x" * 2001})
    assert r.status_code == 422
    r = svc.client.post("/v1/query", headers=svc.as_role("reader"), json={"query": "seal", "k": 21})
    assert r.status_code == 422


def test_queue_full_is_429_then_recovers(tmp_path: Path) -> None:
    settings = Settings(store=tmp_path / "s", embedder="hashing", max_queued_jobs=1)
    with service(settings) as s:
        # Hold the store's writer lock (as a CLI ingest would) so the first job cannot finish.
        with open(settings.store / "ingest.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            first = s.upload("a.md", b"# A\n\ntext a\n")
            assert first.status_code == 202
            second = s.upload("b.md", b"# B\n\ntext b\n")
            assert second.status_code == 429
            assert second.json()["error"]["code"] == "too_many_jobs"
            assert "max_queued_jobs" in second.json()["error"]["message"]
            assert second.headers["retry-after"]
            fcntl.flock(lock, fcntl.LOCK_UN)
        assert s.wait_job(first.json()["job_id"])["status"] == "done"
        assert s.ingest("b.md", b"# B\n\ntext b\n")["status"] == "done"


def _read_response(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = int(
        next(
            line.split(b":")[1]
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
    )
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return head + b"\r\n\r\n" + rest


@pytest.mark.slow
def test_a_200_mb_upload_is_stopped_at_the_limit_over_real_http(tmp_path: Path) -> None:
    """Declared or streamed, 200 MB never gets read: 413 at the 25 MB default limit."""
    settings = Settings(store=tmp_path / "s", embedder="hashing")
    with served(settings) as (s, server):
        key = s.keys["editor"].encode()
        size = 200 * 1024 * 1024
        head = (
            b"POST /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key
            + b"\r\nContent-Type: multipart/form-data; boundary=BOUND\r\n"
        )  # fmt: skip
        # 1. Declared: refused from the headers alone.
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            sock.sendall(head + b"Content-Length: %d\r\n\r\n" % size)
            response = _read_response(sock)
        assert response.startswith(b"HTTP/1.1 413"), response[:200]
        assert b'"too_large"' in response
        # 2. Streamed (chunked, no length): refused once past the limit; we stop sending then.
        part = (
            b'--BOUND\r\nContent-Disposition: form-data; name="file"; filename="big.md"\r\n'
            b"Content-Type: text/markdown\r\n\r\n"
        )
        chunk = b"word " * (1024 * 1024 // 5)
        sent = 0
        response = b""
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            sock.sendall(head + b"Transfer-Encoding: chunked\r\n\r\n")
            sock.sendall(b"%x\r\n%s\r\n" % (len(part), part))
            deadline = time.monotonic() + 120
            # poll, not select: a long test session may hold more than FD_SETSIZE descriptors
            answered = select.poll()
            answered.register(sock, select.POLLIN)
            while sent < size and time.monotonic() < deadline:
                if answered.poll(0):
                    response = _read_response(sock)
                    break
                try:
                    sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                except (BrokenPipeError, ConnectionResetError):
                    response = _read_response(sock)
                    break
                sent += len(chunk)
        assert response.startswith(b"HTTP/1.1 413"), response[:200]
        assert sent < 64 * 1024 * 1024, f"the server read {sent:,} bytes before refusing"
        # The service is fine afterwards.
        assert s.ingest("ok.md", b"# OK\n\ntext\n")["status"] == "done"
        assert not [p for p in (settings.store / "uploads").iterdir()]
