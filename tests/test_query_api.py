"""``POST /v1/query`` and ``overstory query``: the same JSON, and clear errors for bad queries."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from api.cli import main
from indexer.settings import Settings
from tests.helpers import catalog_env
from tests.http_support import Service, service
from tests.test_retriever import manual, other_manual

pytestmark = pytest.mark.backends


@pytest.fixture
def svc(fast_settings: Settings) -> Iterator[Service]:
    with service(fast_settings) as s:
        s.app.state.index.ingest_bytes(manual(), doc_id="pump.md")
        s.app.state.index.ingest_bytes(other_manual(), doc_id="fan.md")
        yield s


def post(svc: Service, body: Any, **kw: Any) -> Any:
    return svc.client.post("/v1/query", json=body, headers=svc.as_role("reader"), **kw)


def cli(settings: Settings, *args: str) -> Any:
    runner = CliRunner()
    env = {"OVERSTORY_EMBEDDER": "hashing", **catalog_env(settings)}
    return runner.invoke(main, [*args, "--store", str(settings.store)], env=env)


def test_http_and_cli_return_the_same_json(svc: Service, fast_settings: Settings) -> None:
    body = {"query": "seal kit working length", "k": 4, "expand": True}
    r = post(svc, body)
    assert r.status_code == 200, r.text
    http = r.json()
    assert len(http["results"]) == 4
    assert {x["kind"] for x in http["results"]} <= {"passage", "summary"}
    out = cli(fast_settings, "query", "seal kit working length", "-k", "4", "--expand", "--json")
    assert out.exit_code == 0, out.output
    assert json.loads(out.output) == http


def test_http_options(svc: Service) -> None:
    r = post(svc, {"query": "fan belts", "documents": ["fan.md"], "kinds": ["passage"], "k": 3})
    assert r.status_code == 200, r.text
    assert {(x["doc_id"], x["kind"]) for x in r.json()["results"]} == {("fan.md", "passage")}


def test_http_needs_a_reader_key(svc: Service) -> None:
    r = svc.client.post("/v1/query", json={"query": "seal"})
    assert r.status_code == 401
    assert r.json()["error"]["code"] == "unauthorized"


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        ({"query": ""}, 422, "empty"),
        ({"query": "x" * 100_000}, 422, "characters"),
        ({"query": "seal\u0000\u0001"}, 422, "control characters"),
        ({"query": "seal", "k": 0}, 422, "between 1 and"),
        ({"query": "seal", "k": 10_000}, 422, "between 1 and"),
        ({"query": "seal", "documents": ["nope.md"]}, 404, "nope.md"),
        ({"query": "seal", "kinds": ["quote"]}, 422, "kinds"),
        ({"k": 3}, 422, "query"),
        ({"query": 5}, 422, "query"),
        ({"query": "seal", "intent": "guess"}, 422, "intent"),
        ({"query": "seal", "intent": None}, 422, "intent"),
        ({"query": "seal", "kind": ["passage"]}, 422, "kind"),
    ],
)
def test_http_bad_queries(svc: Service, body: Any, status: int, needle: str) -> None:
    r = post(svc, body)
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert set(error) == {"code", "message", "detail"}
    assert needle in error["message"]


def test_intent_is_accepted_by_http_and_cli(svc: Service, fast_settings: Settings) -> None:
    for intent in ("auto", "passage", "section", "document"):
        r = post(svc, {"query": "seal kit working length", "k": 2, "intent": intent})
        assert r.status_code == 200, r.text
        assert len(r.json()["results"]) == 2
    out = cli(fast_settings, "query", "seal kit", "-k", "2", "--intent", "section", "--json")
    assert out.exit_code == 0, out.output
    assert len(json.loads(out.output)["results"]) == 2
    retriever = svc.app.state.retriever
    assert retriever.request("seal").intent == "auto"
    assert retriever.request("seal", intent="document").intent == "document"


def test_http_bad_intent_is_named_in_the_error(svc: Service) -> None:
    r = post(svc, {"query": "seal", "intent": "guess"})
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["code"] == "invalid_request"
    assert error["message"].startswith("body.intent:"), error["message"]
    assert error["detail"][0]["loc"] == ["body", "intent"]


def test_http_binary_body(svc: Service) -> None:
    r = svc.client.post(
        "/v1/query",
        content=b'{"query": "\xff\xfe\x00seal"}',
        headers={**svc.as_role("reader"), "Content-Type": "application/json"},
    )
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "invalid_request"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["", "-k", "3"], "query is empty"),
        (["x" * 100_000], "characters long"),
        (["seal\x01\x02"], "control characters"),
        (["seal", "-k", "0"], "between 1 and"),
        (["seal", "-k", "10000"], "between 1 and"),
        (["seal", "--doc", "nope.md"], "no document 'nope.md'"),
        (["seal", "--intent", "guess"], "intent"),
    ],
)
def test_cli_bad_queries(
    svc: Service, fast_settings: Settings, args: list[str], needle: str
) -> None:
    out = cli(fast_settings, "query", *args)
    assert out.exit_code == 1
    assert needle in out.output
    assert "Traceback" not in out.output


def test_cli_text_output(svc: Service, fast_settings: Settings) -> None:
    out = cli(fast_settings, "query", "E-17 motor power", "-k", "2")
    assert out.exit_code == 0, out.output
    assert out.output.startswith("1. [")
    assert "E-17" in out.output


def test_cli_ingest_updates_the_bm25_index(tmp_path: Path) -> None:
    folder = tmp_path / "manuals"
    folder.mkdir()
    (folder / "pump.md").write_bytes(manual())
    store = tmp_path / "store"
    env = {"OVERSTORY_EMBEDDER": "hashing"}
    out = CliRunner().invoke(main, ["ingest", str(folder), "--store", str(store)], env=env)
    assert out.exit_code == 0, out.output
    current = (store / "lexical" / "CURRENT").read_text()
    generation = json.loads((store / "lexical" / current / "generation.json").read_text())
    assert [doc for doc, _ in generation] == ["pump.md"]
