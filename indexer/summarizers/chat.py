"""A summarizer over any chat model: the shared half of the ``openai``, ``local`` and ``llamacpp``
backends.

A backend supplies a :class:`ChatModel` (one chat completion, and a token counter for sizing
inputs against its context window); :class:`ChatSummarizer` turns tree nodes into prompts, runs
them with bounded concurrency, splits inputs that do not fit (``parts.py``) and turns every
per-node failure into a result with ``error`` set, never into a summary.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from indexer.errors import ConfigError, OverstoryError
from indexer.summarizers.base import SummarizerIdentity, SummaryRequest, SummaryResult
from indexer.summarizers.prompts import Message, prompt_version


@dataclass
class Completion:
    """One chat completion and what it cost."""

    text: str
    input_tokens: int
    output_tokens: int
    finish_reason: str | None = None


class ChatModel(Protocol):
    """One chat model behind a backend."""

    name: str
    context_tokens: int

    async def prepare(self) -> None:
        """Load what is needed before the first call (a no-op for a server)."""
        ...

    async def close(self) -> None:
        """Release what belongs to the running event loop (connections); the model stays."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` for this model (an estimate where the tokenizer is remote)."""
        ...

    async def complete(self, messages: list[Message], *, max_tokens: int) -> Completion:
        """One completion.

        Raises:
            SummarizerError: The call failed for good (after the backend's own retries).
        """
        ...


class ChatSummarizer:
    """Summaries from a chat model, one prompt per node (in parts when the node is too long)."""

    def __init__(
        self,
        model: ChatModel,
        *,
        backend: str,
        words: int,
        max_new_tokens: int,
        concurrency: int = 1,
    ) -> None:
        self.model = model
        self.words = words
        self.max_new_tokens = max_new_tokens
        self.concurrency = concurrency
        self.identity = SummarizerIdentity(backend, model.name, prompt_version(words))

    async def summarize(self, requests: Sequence[SummaryRequest]) -> list[SummaryResult]:
        """One result per request, in order; a failed node gets ``error`` and no text.

        Raises:
            ConfigError: The backend cannot run at all (missing package or model file).
        """
        from indexer.summarizers.parts import summarize_request

        if not requests:
            return []
        await self.model.prepare()
        gate = asyncio.Semaphore(self.concurrency)

        async def one(request: SummaryRequest) -> SummaryResult:
            async with gate:
                try:
                    return await summarize_request(
                        request,
                        self.model,
                        words=self.words,
                        max_new_tokens=self.max_new_tokens,
                    )
                except ConfigError:
                    raise
                except OverstoryError as exc:
                    return SummaryResult(key=request.key, text=None, error=exc.message)
                except Exception as exc:  # a library bug must not abort the whole build
                    return SummaryResult(
                        key=request.key, text=None, error=f"{type(exc).__name__}: {exc}"
                    )

        try:
            return list(await asyncio.gather(*(one(r) for r in requests)))
        finally:
            await self.model.close()
