"""A summarizer over any chat model: the shared half of the ``openai``, ``local`` and ``llamacpp``
backends.

A backend supplies a :class:`ChatModel` (``chat_model.py``: one chat completion, and a token
counter for sizing inputs against its context window); :class:`ChatSummarizer` turns tree nodes
into prompts, runs them with bounded concurrency, splits inputs that do not fit (``parts.py``) and
turns every per-node failure into a result with ``error`` set, never into a summary.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from indexer.errors import ConfigError, OverstoryError
from indexer.summarizers.base import SummarizerIdentity, SummaryRequest, SummaryResult
from indexer.summarizers.chat_model import ChatModel, Completion
from indexer.summarizers.parts import summarize_request
from indexer.summarizers.prompts import prompt_version

# Re-exported: backends and tests import the model protocol from here too.
__all__ = ["ChatModel", "ChatSummarizer", "Completion"]


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
