"""The example support chatbot runs as documented: against a store or the HTTP API, with an
OpenAI-compatible model (the test's fake server), quoting passages and marking summaries."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from indexer.settings import Settings
from tests.fake_openai_server import FakeOpenAIServer
from tests.helpers import ROOT
from tests.http_support import served
from tests.test_retriever import manual

QUESTION = "What working length do I set for the mechanical seal?"


def run_example(*args: str) -> Any:
    env = {**os.environ, "OVERSTORY_EMBEDDER": "hashing", "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "support_chatbot.py"), QUESTION, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def check(out: dict[str, Any], server: FakeOpenAIServer) -> None:
    assert out["answer"].startswith("[fake]")  # the model's reply
    prompt = server.seen[-1].user
    assert "QUOTE | quote — pump.md" in prompt
    assert "SUMMARY | summary of 2 Maintenance — pump.md" in prompt
    kinds = {s["kind"] for s in out["sources"]}
    assert kinds == {"passage", "summary"}
    for source, line in zip(out["sources"], out["source_lines"], strict=True):
        if source["kind"] == "passage":
            assert line.startswith(f"[{source['n']}] quote — pump.md › PX-9 Pump Manual")
            assert '"' in line and " ".join(source["text"].split()) in line
        else:
            assert line.startswith(f"[{source['n']}] from a summary (not a quote): summary of")
    assert any("42.5 mm" in s["text"] for s in out["sources"] if s["kind"] == "passage")


def test_chatbot_over_a_store_and_over_http(fast_settings: Settings) -> None:
    with served(fast_settings) as (svc, http), FakeOpenAIServer() as llm:
        svc.app.state.index.ingest_bytes(manual(), doc_id="pump.md")
        common = ("--llm-base-url", llm.base_url, "--model", "fake", "-k", "6", "--json")
        over_http = run_example("--url", http.url, "--api-key", svc.keys["reader"], *common)
        check(json.loads(over_http), llm)
        in_process = run_example("--store", str(fast_settings.store), *common)
        check(json.loads(in_process), llm)
        assert json.loads(in_process)["sources"] == json.loads(over_http)["sources"]
        text = run_example("--store", str(fast_settings.store), *common[:-1])
        assert "\nSources:\n[1] " in text


@pytest.mark.parametrize("args", [["--store", "x", "--url", "y"], []])
def test_chatbot_refuses_unclear_arguments(args: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "support_chatbot.py"), QUESTION, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "--store" in proc.stderr
