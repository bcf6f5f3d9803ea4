"""The MCP server driven by the SDK's own client, over stdio and over streamable HTTP.

Every tool is called on a real store (SQLite, Chroma, the BM25 index) and its structured result
compared with the REST route's body on the same store; bad arguments come back as tool errors
with the canonical error body; over HTTP the API key and its role are enforced.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from api.mcp import MCP_PATH, build_server, http_app
from api.service.keys import ROLES
from api.service.wiring import Stack
from indexer.errors import ConfigError
from indexer.settings import Settings
from tests.http_support import (
    BIN,
    Service,
    ThreadServer,
    free_port,
    mcp_http_client,
    service,
    wait_healthy,
)
from tests.test_retriever import manual, other_manual

TOOLS = {"search", "outline", "read_node", "what_changed", "select", "list_documents"}


@pytest.fixture
def store(fast_settings: Settings) -> Iterator[tuple[Settings, Stack, Service]]:
    """A store with two documents, the pump manual in two revisions; the REST app over it."""
    with service(fast_settings) as svc:
        index = svc.app.state.index
        index.ingest_bytes(manual(), doc_id="pump.md")
        index.ingest_bytes(other_manual(), doc_id="fan.md")
        index.ingest_bytes(manual(torque="110 N·m"), doc_id="pump.md")
        yield fast_settings, Stack(index=index, retriever=svc.app.state.retriever), svc


def _chapter_id(svc: Service) -> str:
    tree = svc.client.get("/v1/documents/pump.md/tree", headers=svc.as_role("reader")).json()
    return str(next(c for c in tree["children"] if c["title"] == "2 Maintenance")["node_id"])


def calls(chapter: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """One call of every tool (name → tool, arguments)."""
    return {
        "search": (
            "search",
            {"query": "seal working length", "k": 4, "expand": True, "detail": True},
        ),
        "search_passages": (
            "search",
            {"query": "E-17", "kinds": ["passage"], "k": 2, "detail": True},
        ),
        "search_compact": ("search", {"query": "seal working length", "k": 4, "expand": True}),
        "read_node": ("read_node", {"node_id": chapter, "passages_limit": 2}),
        "what_changed": ("what_changed", {"doc_id": "pump.md"}),
        "select": ("select", {"k": 2}),
        "list_documents": ("list_documents", {}),
        "outline": ("outline", {"doc_id": "pump.md", "depth": 1}),
        "outline_deep": ("outline", {"doc_id": "pump.md", "depth": 10}),
        "what_changed_section": ("what_changed", {"doc_id": "pump.md", "section": "impeller"}),
        "what_changed_elsewhere": ("what_changed", {"doc_id": "pump.md", "section": "piping"}),
    }


def rest_answers(svc: Service, chapter: str) -> dict[str, Any]:
    """The REST API's bodies for the same calls (outline has no route of its own)."""
    h = svc.as_role("reader")
    get, post = svc.client.get, svc.client.post

    def query(name: str) -> httpx.Response:
        body = {k: v for k, v in calls(chapter)[name][1].items() if k != "detail"}
        return post("/v1/query", json=body, headers=h)

    answers = {
        "search": query("search"),
        "search_passages": query("search_passages"),
        "read_node": get(f"/v1/nodes/{chapter}?passages_limit=2", headers=h),
        "what_changed": get("/v1/documents/pump.md/diff", headers=h),
        "select": post("/v1/select", json={"k": 2}, headers=h),
        "list_documents": get("/v1/documents", headers=h),
    }
    answers["_tree"] = get("/v1/documents/pump.md/tree", headers=h)
    for name, r in answers.items():
        assert r.status_code == 200, (name, r.text)
    return {name: r.json() for name, r in answers.items()}


async def call_all(client: Client, chapter: str) -> dict[str, Any]:
    """Every call through the MCP client: the structured result, checked against its text."""
    listed = await client.list_tools()
    assert {t.name for t in listed.tools} >= TOOLS
    out = {}
    for name, (tool, args) in calls(chapter).items():
        result = await client.call_tool(tool, args)
        assert not result.is_error, (name, result.content)
        assert json.loads(result.content[0].text) == result.structured_content
        out[name] = result.structured_content
    return out


async def call_errors(client: Client) -> dict[str, dict[str, Any]]:
    """Bad arguments: each answered with a tool error, never a crash."""
    bad = {
        "empty query": ("search", {"query": "  "}),
        "k too large": ("search", {"query": "seal", "k": 10_000}),
        "unknown kind": ("search", {"query": "seal", "kinds": ["quote"]}),
        "unknown argument": ("search", {"query": "seal", "limit": 3}),
        "wrong type": ("search", {"query": "seal", "k": "many"}),
        "unknown document": ("outline", {"doc_id": "nope.md"}),
        "depth out of range": ("outline", {"doc_id": "pump.md", "depth": 99}),
        "unknown node": ("read_node", {"node_id": "0000"}),
        "negative page": ("read_node", {"node_id": "0000", "passages_limit": -1}),
        "unknown revision": ("what_changed", {"doc_id": "pump.md", "from_revision": "ffff"}),
        "k zero": ("select", {"k": 0}),
    }
    out = {}
    for name, (tool, args) in bad.items():
        result = await client.call_tool(tool, args)
        assert result.is_error, (name, result.content)
        out[name] = {"text": result.content[0].text, "structured": result.structured_content}
    still = await client.call_tool("list_documents", {})
    assert not still.is_error  # the server is still answering
    return out


def check_errors(errors: dict[str, dict[str, Any]]) -> None:
    codes = {
        name: (e["structured"] or {}).get("error", {}).get("code") for name, e in errors.items()
    }
    assert codes["empty query"] == "invalid_request"
    assert codes["k too large"] == "invalid_request"
    assert codes["unknown argument"] == "invalid_request"
    assert "limit" in errors["unknown argument"]["text"]
    assert codes["unknown document"] == "not_found"
    assert "nope.md" in errors["unknown document"]["text"]
    assert codes["depth out of range"] == "invalid_request"
    assert codes["unknown node"] == "not_found"
    assert codes["negative page"] == "invalid_request"
    assert codes["unknown revision"] == "not_found"
    assert codes["k zero"] == "invalid_request"
    # values outside the tool's input schema: the SDK's own check, as a tool error
    assert "kinds" in errors["unknown kind"]["text"]
    assert "validation error" in errors["wrong type"]["text"]


COMPACT_HIT = ("rank", "node_id", "doc_id", "revision", "kind", "label", "heading_path", "pages")


def compact(body: dict[str, Any]) -> dict[str, Any]:
    """What a compact search keeps of the REST body: per hit its text, label, ids, heading path
    and pages (and its compact support); no scores, spans, sentences, route or intent."""

    def hit(h: dict[str, Any]) -> dict[str, Any]:
        out = {k: h[k] for k in COMPACT_HIT} | {"text": h["text"]}
        if "support" in h:
            out["support"] = [hit(s) for s in h["support"]]
        return out

    return {
        "query": body["query"],
        "kind": body["kind"],
        "results": [hit(h) for h in body["results"]],
    }


def check_answers(mcp: dict[str, Any], rest: dict[str, Any]) -> None:
    """The MCP results are the REST bodies; the outline is the tree's headings, no text."""
    for name, body in rest.items():
        if not name.startswith("_"):
            assert mcp[name] == body, name
    short = mcp["search_compact"]
    assert short == compact(rest["search"])
    assert any("support" in h for h in short["results"])
    assert len(json.dumps(short)) < len(json.dumps(rest["search"])) / 2
    results = mcp["search"]["results"]
    summaries = [r for r in results if r["kind"] == "summary"]
    assert {r["label"] for r in results if r["kind"] == "passage"} == {"quote"}
    assert all(r["label"].startswith("summary of ") for r in summaries)
    assert mcp["read_node"]["node"]["label"] == "summary of 2 Maintenance"
    assert {p["label"] for p in mcp["read_node"]["passages"]} == {"quote"}
    node = mcp["read_node"]["node"]
    assert node["sentences"] and all(s["spans"] for s in node["sentences"])
    for s in node["sentences"]:
        for span in s["spans"]:
            assert node["char_start"] <= span["char_start"] < span["char_end"] <= node["char_end"]
    assert all(r["sentences"] for r in summaries)
    assert mcp["what_changed"]["summary"]["changed"] >= 1
    outline = mcp["outline"]["outline"]
    assert outline["level"] == "document"
    assert [c["title"] for c in outline["children"]] == [
        "1 Installation",
        "2 Maintenance",
        "3 Troubleshooting",
    ]
    assert all(c["children"] == [] and c["summary"] for c in outline["children"])
    assert outline["children"][0]["hidden_children"] == 2
    assert "text" not in json.dumps(outline)
    check_outline(mcp["outline_deep"]["outline"], rest["_tree"])
    scoped = mcp["what_changed_section"]
    assert scoped["section"] == "impeller" and scoped["summary"]["changed"] == 1
    assert [c["heading_path"][-1] for c in scoped["changes"]] == ["2.2 Impeller"]
    assert "110 N·m" in scoped["changes"][0]["diff"]
    assert mcp["what_changed_elsewhere"]["changes"] == []


def check_outline(node: dict[str, Any], tree: dict[str, Any]) -> None:
    """An outline node is its tree node without passages: same id, title, path, pages."""
    for key in ("node_id", "level", "title", "heading_path", "pages"):
        assert node[key] == tree[key], key
    assert node["passages"] == tree["covers"]["passages"]
    one_line = " ".join(node["summary"].rstrip("…").split())
    assert one_line and one_line in " ".join(tree["summary"].split())
    inner = [c for c in tree["children"] if c["level"] != "passage"]
    assert len(node["children"]) == len(inner)
    for child, tree_child in zip(node["children"], inner, strict=True):
        check_outline(child, tree_child)


def _stdio_params(settings: Settings) -> StdioServerParameters:
    env = {**os.environ, "OVERSTORY_EMBEDDER": "hashing", "HF_HUB_OFFLINE": "1"}
    return StdioServerParameters(
        command=str(BIN / "overstory"), args=["mcp", "--store", str(settings.store)], env=env
    )


def test_stdio_every_tool_answers_as_the_rest_api(store: Any) -> None:
    settings, _, svc = store
    chapter = _chapter_id(svc)
    rest = rest_answers(svc, chapter)

    async def session() -> tuple[dict[str, Any], dict[str, Any]]:
        async with Client(_stdio_params(settings)) as client:
            return await call_all(client, chapter), await call_errors(client)

    answers, errors = anyio.run(session)
    check_answers(answers, rest)
    check_errors(errors)


@pytest.fixture
def mcp_http(store: Any) -> Iterator[tuple[str, Service]]:
    """The MCP server over streamable HTTP under uvicorn on a loopback port."""
    settings, stack, svc = store
    with ThreadServer(http_app(build_server(stack), settings, stack)) as server:  # type: ignore[arg-type]
        yield server.url, svc


def _client(url: str, key: str | None) -> Client:
    headers = {"Authorization": f"Bearer {key}"} if key else None
    http = mcp_http_client(headers=headers)
    return Client(streamable_http_client(url + MCP_PATH, http_client=http))


def test_http_every_tool_answers_as_the_rest_api(mcp_http: tuple[str, Service]) -> None:
    url, svc = mcp_http
    chapter = _chapter_id(svc)
    rest = rest_answers(svc, chapter)

    async def session() -> tuple[dict[str, Any], dict[str, Any]]:
        async with _client(url, svc.keys["reader"]) as client:
            return await call_all(client, chapter), await call_errors(client)

    answers, errors = anyio.run(session)
    check_answers(answers, rest)
    check_errors(errors)


def test_http_enforces_the_key_and_its_role(mcp_http: tuple[str, Service]) -> None:
    url, svc = mcp_http
    init = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    for headers in ({}, {"Authorization": "Bearer ovs_00000000_nope"}, {"Authorization": "x"}):
        r = httpx.post(url + MCP_PATH, json=init, headers=headers)
        assert r.status_code == 401, r.text
        assert r.json()["error"]["code"] == "unauthorized"
        assert r.headers["www-authenticate"] == "Bearer"
    queue = svc.client.get("/v1/audit/queue?limit=3", headers=svc.as_role("auditor")).json()

    async def as_role(role: str) -> Any:
        async with _client(url, svc.keys[role]) as client:
            return await client.call_tool("audit_queue", {"limit": 3})

    for role in ROLES:
        result = anyio.run(as_role, role)
        if role == "reader" or role == "editor":
            assert result.is_error
            assert result.structured_content["error"]["code"] == "forbidden"
            assert "auditor" in result.content[0].text
        else:
            assert not result.is_error, result.content
            assert result.structured_content == queue
    key_id = svc.keys["reader"].split("_")[1]
    svc.app.state.keys.revoke(key_id)
    r = httpx.post(url + MCP_PATH, json=init, headers=svc.as_role("reader"))
    assert r.status_code == 401
    assert "revoked" in r.json()["error"]["message"]


def test_http_lists_the_tools_of_the_role_with_output_schemas(
    mcp_http: tuple[str, Service],
) -> None:
    url, svc = mcp_http

    async def listed(role: str) -> Any:
        async with _client(url, svc.keys[role]) as client:
            return (await client.list_tools()).tools

    for role in ROLES:
        tools = anyio.run(listed, role)
        names = {t.name for t in tools}
        assert names >= TOOLS | {"context"}
        assert ("audit_queue" in names) == (role in ("auditor", "admin")), role
        for tool in tools:
            schema = tool.output_schema
            assert schema and schema["type"] == "object" and schema["properties"], tool.name
    search = next(t for t in anyio.run(listed, "reader") if t.name == "search")
    hit = search.output_schema["$defs"]["SearchHit"]
    assert {"text", "label", "node_id", "heading_path", "pages"} <= set(hit["required"])
    assert "score" not in hit["required"] and "detail" in search.input_schema["properties"]


def test_mcp_refuses_a_missing_store(tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(BIN / "overstory"), "mcp", "--store", str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "OVERSTORY_EMBEDDER": "hashing"},
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 1
    assert "missing" in proc.stderr and proc.stdout == ""


def test_the_http_command_serves_the_tools(store: Any, tmp_path: Path) -> None:
    """``overstory mcp --transport http`` as users run it: a subprocess on a loopback port."""
    settings, _, svc = store
    port = free_port()
    env = {**os.environ, "OVERSTORY_EMBEDDER": "hashing", "HF_HUB_OFFLINE": "1"}
    cmd = [str(BIN / "overstory"), "mcp", "--transport", "http", "--port", str(port)]
    cmd += ["--store", str(settings.store)]
    log = tmp_path / "mcp.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, proc=proc)

        async def session() -> Any:
            async with _client(url, svc.keys["auditor"]) as client:
                return await client.call_tool("audit_queue", {"limit": 2})

        result = anyio.run(session)
        assert not result.is_error, result.content
        assert result.structured_content["items"]
        taken = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
        assert taken.returncode == 1
        assert f"cannot listen on 127.0.0.1:{port}" in taken.stderr
    finally:
        proc.terminate()
        proc.wait(60)
    assert "/v1/mcp" in log.read_text()


def test_http_with_auth_off_is_for_loopback_only(store: Any) -> None:
    settings, stack, _ = store
    server = build_server(stack)
    with pytest.raises(ConfigError, match="local development only"):
        http_app(server, settings.model_copy(update={"auth": "off", "host": "0.0.0.0"}), stack)
    dev = settings.model_copy(update={"auth": "off"})
    with ThreadServer(http_app(server, dev, stack)) as running:  # type: ignore[arg-type]

        async def session() -> Any:
            async with _client(running.url, None) as client:
                return await client.call_tool("audit_queue", {"limit": 1})

        result = anyio.run(session)  # without keys every call is the developer's (admin)
        assert not result.is_error, result.content
        r = httpx.post(
            running.url + MCP_PATH,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
            headers={"Host": "evil.example"},
        )
        assert r.status_code == 403
        assert r.json()["error"]["code"] == "forbidden_origin"
