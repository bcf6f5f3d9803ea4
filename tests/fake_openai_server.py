"""A small OpenAI-compatible chat-completions server for tests, on 127.0.0.1 in a thread.

It follows the ``POST /v1/chat/completions`` schema (``id``, ``object: "chat.completion"``,
``created``, ``model``, ``choices[{index, message{role, content}, finish_reason}]``, ``usage``)
and OpenAI's error body, and can be told to fail:

- ``server.script(["429", "500", "ok", ...])``: the next requests behave so, in order;
- ``server.default = "ok" | "429" | "500" | "hang"``: what every other request does;
- ``server.fail_if_contains = "text"``: a request whose prompt contains it gets a 500.

``hang`` sleeps ``hang_seconds`` before answering (past the client's timeout). ``server.reply``,
when set, is the content of every answer instead (a judge's JSON); ``server.bodies`` keeps the
request bodies. The summary is
deterministic and derived from the input: the model name and the first sentence of the node's
material, so a test can tell which node a summary belongs to and re-runs are comparable.
"""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

_SENTENCE = re.compile(r"(?<=[.!?])\s")


@dataclass
class Seen:
    """One request the server received."""

    status: int
    model: str
    user: str


_NUMBERED = re.compile(r"^\[(\d+)\] (.+)$", re.M)


def summary_for(model: str, user: str) -> str:
    """The fake model's answer: its name and the first sentence of the prompt's material, citing
    the numbered line it comes from when the prompt numbers its lines."""
    numbered = _NUMBERED.search(user)
    if numbered is not None:
        first = _SENTENCE.split(numbered.group(2), maxsplit=1)[0]
        return f"[{model}] {' '.join(first.split()[:40])} [{numbered.group(1)}]"
    blocks = user.split("\n\n")
    material = " ".join(blocks[2:]) if len(blocks) > 2 else user
    material = re.sub(r"^(Text|Summaries[^:]*|Part \d+):\s*", "", material.strip())
    material = re.sub(r"\s+", " ", material)
    first = _SENTENCE.split(material, maxsplit=1)[0]
    words = first.split()[:40]
    return f"[{model}] " + " ".join(words)


class FakeOpenAIServer:
    """Start with ``with FakeOpenAIServer() as server:``; ``server.base_url`` ends in ``/v1``."""

    def __init__(self, *, hang_seconds: float = 5.0) -> None:
        self.default = "ok"
        self.fail_if_contains: str | None = None
        self.hang_seconds = hang_seconds
        self.seen: list[Seen] = []
        self.reply: str | None = None
        self.bodies: list[dict[str, Any]] = []
        self._script: deque[str] = deque()
        self._lock = threading.Lock()
        self._counter = 0
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0
        self.app = self._make_app()

    # control -------------------------------------------------------------------------------
    def script(self, behaviours: Iterable[str]) -> None:
        """Queue behaviours for the next requests (``ok``, ``429``, ``500``, ``hang``)."""
        with self._lock:
            self._script.extend(behaviours)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> int:
        """Chat-completion requests received (failed ones included)."""
        return len(self.seen)

    @property
    def completions(self) -> int:
        """Requests answered with a completion (HTTP 200)."""
        return sum(1 for s in self.seen if s.status == 200)

    def _next(self, user: str) -> str:
        with self._lock:
            if self._script:
                return self._script.popleft()
        if self.fail_if_contains and self.fail_if_contains in user:
            return "500"
        return self.default

    # the app -------------------------------------------------------------------------------
    def _make_app(self) -> FastAPI:
        app = FastAPI()

        @app.get("/v1/models")
        async def models() -> dict[str, Any]:
            return {"object": "list", "data": [{"id": "fake", "object": "model", "owned_by": "t"}]}

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> JSONResponse:
            body = await request.json()
            self.bodies.append(body)
            model = body.get("model")
            messages = body.get("messages")
            if not isinstance(model, str) or not isinstance(messages, list) or not messages:
                return _error(400, "model and messages are required", "invalid_request_error")
            if any(not isinstance(m, dict) or "role" not in m for m in messages):
                return _error(400, "every message needs a role", "invalid_request_error")
            user = "\n".join(str(m.get("content", "")) for m in messages if m["role"] == "user")
            behaviour = self._next(user)
            if behaviour == "hang":
                await asyncio.sleep(self.hang_seconds)
            if behaviour == "429":
                self.seen.append(Seen(429, model, user))
                return _error(429, "Rate limit reached", "rate_limit_error", retry_after="0")
            if behaviour == "500":
                self.seen.append(Seen(500, model, user))
                return _error(500, "The server had an error", "server_error")
            # A hung request is answered late, after the client gave up: not a completion.
            self.seen.append(Seen(0 if behaviour == "hang" else 200, model, user))
            with self._lock:
                self._counter += 1
                n = self._counter
            text = self.reply if self.reply is not None else summary_for(model, user)
            prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
            return JSONResponse(
                {
                    "id": f"chatcmpl-fake{n:06d}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "logprobs": None,
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": len(text.split()),
                        "total_tokens": prompt_tokens + len(text.split()),
                    },
                    "system_fingerprint": None,
                }
            )

        return app

    # lifecycle -----------------------------------------------------------------------------
    def start(self) -> FakeOpenAIServer:
        """Bind a free port on 127.0.0.1 and serve in a daemon thread."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app, log_level="warning", timeout_graceful_shutdown=1, lifespan="off"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the fake OpenAI server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Stop serving and wait for the thread."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _error(status: int, message: str, kind: str, *, retry_after: str | None = None) -> JSONResponse:
    headers = {"retry-after": retry_after} if retry_after is not None else None
    return JSONResponse(
        {"error": {"message": message, "type": kind, "param": None, "code": None}},
        status_code=status,
        headers=headers,
    )
