"""What a chat-model backend supplies: the :class:`ChatModel` protocol and its :class:`Completion`.

Its own module so that ``chat.py`` (the summarizer over a model) and ``parts.py`` (summaries in
parts, which calls the model) can both import it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from indexer.summarizers.prompts import Message


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
