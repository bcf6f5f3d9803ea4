"""Token estimates for ``overstory ingest --dry-run``, before any model is called.

Counts use the bundled MiniLM WordPiece tokenizer (no model load, no network) times a small
safety factor: chat models' BPE tokenizers usually count English prose within about ±15 % of it
and split long digit runs finer. Input is the whole prompt (instructions, heading path, passages,
child summaries), in parts where a node does not fit the context (``parts.py``); output is the
summary length asked for, capped by ``summarizer_max_new_tokens``. A summary not yet written (a
child computed earlier in the same run) is counted at that expected length.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from indexer.summarizers.base import SummaryRequest
from indexer.summarizers.citations import Line, numbered_lines
from indexer.summarizers.parts import combine_rounds, prompt_limit, prompt_tokens, split_lines
from indexer.summarizers.prompts import combine_messages, messages_for
from indexer.tokens import count_tokens

_SAFETY = 1.1
# Stands for a summary that the run being planned would compute before its parent.
PENDING = "\x00pending:"


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text`` for a chat model's tokenizer."""
    return math.ceil(count_tokens(text) * _SAFETY)


@dataclass
class TokenEstimate:
    """Estimated cost of one summary."""

    input_tokens: int
    output_tokens: int
    calls: int
    parts: int = 1


class TokenEstimator:
    """Estimates what a backend spends on one summary request."""

    def __init__(
        self,
        *,
        backend: str,
        words: int,
        summary_tokens: int,
        max_new_tokens: int,
        context_tokens: int,
    ) -> None:
        self.backend = backend
        self.words = words
        self.summary_tokens = summary_tokens
        self.output = min(summary_tokens, max_new_tokens)
        self.max_new_tokens = max_new_tokens
        self.context_tokens = context_tokens

    def count(self, text: str) -> int:
        """Tokens of ``text``; a pending child summary counts as one summary's length."""
        if text.startswith(PENDING):
            return self.output
        return estimate_tokens(text)

    def estimate(self, request: SummaryRequest) -> TokenEstimate:
        """Input and output tokens and model calls for ``request``."""
        if self.backend == "extractive":
            n_in = sum(self.count(p) for p in request.passages)
            n_in += sum(self.count(c.text) for c in request.children)
            return TokenEstimate(n_in, min(self.summary_tokens, n_in), 0)
        lines = numbered_lines(request)
        parts = split_lines(
            request,
            lines,
            words=self.words,
            count=self.count,
            context_tokens=self.context_tokens,
            max_new_tokens=self.max_new_tokens,
        )
        if parts is None:
            messages = messages_for(request, lines, words=self.words)
            return TokenEstimate(prompt_tokens(messages, self.count), self.output, 1)
        n_in = sum(
            prompt_tokens(
                messages_for(request, p, words=self.words, part=(i, len(parts))), self.count
            )
            for i, p in enumerate(parts, 1)
        )
        calls = len(parts)
        summaries = [_pending(i) for i in range(len(parts))]
        limit = prompt_limit(self.context_tokens, self.max_new_tokens)
        while True:
            rounds = combine_rounds(
                request, summaries, words=self.words, count=self.count, limit=limit
            )
            for group in rounds:
                if len(group) > 1 or len(rounds) == 1:
                    flat = [line for p in group for line in p]
                    n_in += prompt_tokens(
                        combine_messages(request, flat, words=self.words), self.count
                    )
                    calls += 1
            if len(rounds) == 1 or len(rounds) == len(summaries):
                break
            summaries = [_pending(i) for i in range(len(rounds))]
        return TokenEstimate(n_in, calls * self.output, calls, parts=len(parts))


def _pending(i: int) -> list[Line]:
    """A part summary not yet written, as the lines a combining prompt would show."""
    return [Line(1, PENDING, (), f"Part {i + 1}")]
