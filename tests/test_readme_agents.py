"""The chatbot how-to (docs/how-to/chatbot.md, once the README's agent section) stays true: its
MCP client configurations and Python snippets run."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from api.mcp import build_server, http_app
from api.service.wiring import Stack
from indexer.settings import Settings
from tests.helpers import ROOT
from tests.http_support import BIN, ThreadServer, mcp_http_client, served
from tests.test_retriever import manual

SECTION = (ROOT / "docs" / "how-to" / "chatbot.md").read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", SECTION, flags=re.DOTALL)


def test_the_section_has_both_configurations_and_both_snippets() -> None:
    assert len(blocks("json")) == 2
    snippets = blocks("python")
    assert len(snippets) == 3  # LlamaIndex, its context mode, LangChain
    assert sum('mode="context"' in s for s in snippets) == 1


def test_the_stdio_configuration_starts_the_server(fast_settings: Settings) -> None:
    with served(fast_settings) as (svc, _):
        svc.app.state.index.ingest_bytes(manual(), doc_id="pump.md")
    entry = json.loads(blocks("json")[0])["mcpServers"]["overstory"]
    assert entry["command"] == "/path/to/overstory/.venv/bin/overstory"
    args = [str(fast_settings.store) if a.endswith("/.overstory") else a for a in entry["args"]]
    env = {**os.environ, **entry["env"], "OVERSTORY_EMBEDDER": "hashing"}
    params = StdioServerParameters(command=str(BIN / "overstory"), args=args, env=env)

    async def session() -> Any:
        async with Client(params) as client:
            return await client.call_tool("outline", {"doc_id": "pump.md", "depth": 0})

    result = anyio.run(session)
    assert not result.is_error, result.content
    assert result.structured_content["outline"]["title"] == "PX-9 Pump Manual"


def test_the_http_configuration_and_the_snippets_work(fast_settings: Settings) -> None:
    with served(fast_settings) as (svc, rest):
        index = svc.app.state.index
        index.ingest_bytes(manual(), doc_id="pump.md")
        stack = Stack(index=index, retriever=svc.app.state.retriever)
        key = svc.keys["reader"]
        entry = json.loads(blocks("json")[1])["mcpServers"]["overstory"]
        assert entry["type"] == "http" and entry["url"].endswith(":8765/v1/mcp")
        with ThreadServer(http_app(build_server(stack), fast_settings, stack)) as mcp:  # type: ignore[arg-type]
            url = entry["url"].replace("http://127.0.0.1:8765", mcp.url)
            headers = {k: v.replace("ovs_…", key) for k, v in entry["headers"].items()}

            async def session() -> Any:
                http = mcp_http_client(headers=headers)
                async with Client(streamable_http_client(url, http_client=http)) as client:
                    return await client.call_tool("search", {"query": "impeller nut torque"})

            result = anyio.run(session)
        assert not result.is_error, result.content
        assert result.structured_content["results"]
        for snippet in blocks("python"):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(snippet.replace("http://127.0.0.1:8000", rest.url), {"KEY": key})
            lines = out.getvalue().splitlines()
            if 'mode="context"' in snippet:
                # The budgeted context: its pieces numbered 1, 2, … in reading order, each
                # labelled, the impeller's section among them; no Python reprs.
                numbers = [line.split(" ", 1)[0] for line in lines]
                assert numbers == [str(i) for i in range(1, len(lines) + 1)], out.getvalue()
                assert any(line.endswith("2.2 Impeller") for line in lines), out.getvalue()
                assert not any("None" in line or "['" in line for line in lines)
                continue
            assert len(lines) == 5, out.getvalue()
            assert any("summary of" in line for line in lines) or any(
                "quote" in line for line in lines
            )
