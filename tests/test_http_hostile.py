"""Hostile input over real HTTP: oversized streamed bodies, secrets in every encoding, odd forms."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from indexer.settings import Settings
from tests.http_support import Service, ThreadServer, served
from tests.test_error_shape import assert_canonical

JSON_LIMIT = 1024 * 1024


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, ThreadServer]]:
    store = tmp_path_factory.mktemp("hostile") / "store"
    with served(Settings(store=store, embedder="hashing", auth="keys")) as pair:
        yield pair


def _chunked(total: int, piece: int = 64 * 1024) -> Iterator[bytes]:
    """A JSON-looking body of ``total`` bytes, sent without a length (chunked)."""
    yield b'{"query": "'
    sent = 11
    while sent < total:
        n = min(piece, total - sent)
        yield b"a" * n
        sent += n


JSON_ROUTES = [
    ("/v1/query", "reader"),
    ("/v1/select", "reader"),
    ("/v1/keys", "admin"),
    ("/v1/nodes/n1/review", "auditor"),
]


@pytest.mark.parametrize(("path", "role"), JSON_ROUTES)
def test_a_streamed_body_over_the_limit_is_413_on_every_route(
    running: tuple[Service, ThreadServer],
    path: str,
    role: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    svc, _ = running
    caplog.set_level(logging.INFO)
    headers = {**svc.as_role(role), "content-type": "application/json"}
    r = svc.client.post(path, headers=headers, content=_chunked(JSON_LIMIT + 4096))
    assert r.status_code == 413, r.text
    error = assert_canonical(r.json(), "too_large")
    assert error["detail"] == {"limit": JSON_LIMIT}
    logged = [rec for rec in caplog.records if rec.name.startswith("overstory")]
    assert not [rec for rec in logged if rec.exc_info], "a refusal must not log a traceback"
    assert all("\n" not in rec.getMessage() for rec in logged)


def test_a_streamed_body_under_the_limit_is_read(running: tuple[Service, ThreadServer]) -> None:
    svc, _ = running
    headers = {**svc.as_role("reader"), "content-type": "application/json"}
    body = iter([b'{"query": ', b'"seal kit", "k": 3}'])
    r = svc.client.post("/v1/query", headers=headers, content=body)
    assert r.status_code == 200, r.text


def test_the_declared_length_is_refused_alike(running: tuple[Service, ThreadServer]) -> None:
    svc, _ = running
    headers = {**svc.as_role("reader"), "content-type": "application/json"}
    r = svc.client.post("/v1/query", headers=headers, content=b"x" * (JSON_LIMIT + 1))
    assert r.status_code == 413
    assert assert_canonical(r.json(), "too_large")["detail"] == {"limit": JSON_LIMIT}


@pytest.mark.parametrize(
    "body",
    [
        {"status": "corrected", "text": "Replace the seal\x00 kit."},
        {"status": "corrected", "text": "Replace the seal kit.\x07"},
        {"status": "approved", "note": "looks fine\x00"},
    ],
)
def test_a_review_with_a_control_character_is_refused_like_a_query(
    running: tuple[Service, ThreadServer], body: dict[str, str]
) -> None:
    svc, _ = running
    query = svc.client.post(
        "/v1/query", headers=svc.as_role("reader"), json={"query": "seal\x00 kit"}
    )
    assert query.status_code == 422
    r = svc.client.post("/v1/nodes/n1/review", headers=svc.as_role("auditor"), json=body)
    assert r.status_code == 422, r.text
    error = assert_canonical(r.json(), "invalid_request")
    assert "control characters" in error["message"]


@pytest.mark.parametrize("field", ["file", "doc_id"])
def test_an_upload_with_a_field_twice_is_refused(
    running: tuple[Service, ThreadServer], field: str
) -> None:
    svc, _ = running
    files = [("file", ("a.md", b"# A\n\nfirst\n"))]
    data: dict[str, list[str]] | None = None
    if field == "file":
        files.append(("file", ("b.md", b"# B\n\nsecond\n")))
    else:
        data = {"doc_id": ["a.md", "b.md"]}
    r = svc.client.post("/v1/documents", headers=svc.as_role("editor"), files=files, data=data)
    assert r.status_code == 422, r.text
    error = assert_canonical(r.json(), "invalid_request")
    assert f"{field!r} given more than once" in error["message"]
    assert error["detail"][0]["loc"] == ["body", field]
