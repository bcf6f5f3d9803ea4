"""The ``llamacpp`` backend: a GGUF model run in-process with ``llama-cpp-python``.

Much faster generation than ``local`` (quantized kernels), but the package compiles llama.cpp
from source when installed (8–17 minutes on 2 cores):
``CMAKE_ARGS=-DGGML_NATIVE=OFF pip install 'overstory[llamacpp]'`` (``GGML_NATIVE=OFF`` keeps the
build portable to other CPUs). Imported lazily; loaded on the first summary; greedy decoding;
one generation at a time in a worker thread (a ``Llama`` object is not thread-safe).
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexer.errors import ConfigError
from indexer.summarizers.chat import ChatSummarizer
from indexer.summarizers.chat_model import Completion
from indexer.summarizers.local import require_packages
from indexer.summarizers.modelfiles import model_name, resolve_model_path
from indexer.summarizers.prompts import Message, words_for

if TYPE_CHECKING:
    from indexer.settings import Settings

INSTALL = "CMAKE_ARGS=-DGGML_NATIVE=OFF pip install 'overstory[llamacpp]'"


class LlamaCppChatModel:
    """A GGUF model in llama.cpp."""

    def __init__(self, path: Path, *, context_tokens: int, threads: int) -> None:
        self.path = path
        self.name = model_name(path)
        self.context_tokens = context_tokens
        self.threads = threads
        self._lock = threading.Lock()
        self._llm: Any = None

    async def prepare(self) -> None:
        """Load the model in a worker thread."""
        if self._llm is None:
            await asyncio.to_thread(self.load)

    def load(self) -> None:
        """Load the model, once."""
        with self._lock:
            if self._llm is not None:
                return
            from llama_cpp import Llama

            try:
                self._llm = Llama(
                    model_path=str(self.path),
                    n_ctx=self.context_tokens,
                    n_threads=self.threads,
                    seed=0,
                    verbose=False,
                )
            except (OSError, ValueError, RuntimeError) as exc:
                raise ConfigError(f"cannot load the summarizer model {self.path}: {exc}") from exc

    async def close(self) -> None:
        """Nothing to release: the model stays loaded for the next batch."""

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` for this model's own tokenizer."""
        self.load()
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    async def complete(self, messages: list[Message], *, max_tokens: int) -> Completion:
        """Greedy generation in a worker thread."""
        return await asyncio.to_thread(self._generate, messages, max_tokens)

    def _generate(self, messages: list[Message], max_tokens: int) -> Completion:
        self.load()
        with self._lock:
            out = self._llm.create_chat_completion(
                messages=messages, max_tokens=max_tokens, temperature=0.0, repeat_penalty=1.1
            )
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return Completion(
            choice["message"].get("content") or "",
            int(usage.get("prompt_tokens", 0)),
            int(usage.get("completion_tokens", 0)),
            choice.get("finish_reason"),
        )


def make_llamacpp_summarizer(settings: Settings) -> ChatSummarizer:
    """The ``llamacpp`` backend configured from ``settings``.

    Raises:
        ConfigError: llama-cpp-python is not installed, or no GGUF model is found.
    """
    require_packages(["llama_cpp"], INSTALL)
    path = resolve_model_path(settings.summarizer_model_path, allow_folder=False)
    return ChatSummarizer(
        LlamaCppChatModel(
            path,
            context_tokens=settings.summarizer_context_tokens,
            threads=settings.summarizer_threads,
        ),
        backend="llamacpp",
        words=words_for(settings.summary_tokens),
        max_new_tokens=settings.summarizer_max_new_tokens,
        concurrency=1,
    )
