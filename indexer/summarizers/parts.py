"""One node through a chat model: numbered lines in, cited sentences out, in parts when long.

The node's numbered source lines (:mod:`indexer.summarizers.citations`) are sent in one prompt
when they fit the model's context; otherwise they are cut into consecutive groups that each fit,
each group is summarized with a "part i of n" prompt (keeping the lines' own numbers), and the
parts' cited sentences become the numbered lines of a combining prompt (in several rounds if even
they do not fit). Every answer's citations are checked; an answer with a sentence whose citations
fail is asked for once more, and the better of the two is kept (its failing sentences marked
unverified). ``SummaryResult.parts`` is the number of parts (1: one call, retries aside).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from indexer.errors import ConfigError, SummarizerError
from indexer.summarizers.base import SummaryRequest, SummaryResult
from indexer.summarizers.chat_model import ChatModel
from indexer.summarizers.citations import (
    CitedSummary,
    Line,
    numbered_lines,
    parse_cited,
    renumbered,
    retry_note,
)
from indexer.summarizers.prompts import Message, clean_output, combine_messages, messages_for

Count = Callable[[str], int]

# Tokens kept free besides the answer: chat-template tokens and the tokenizer estimate's error.
_MARGIN = 32
_LINE_OVERHEAD = 4


def prompt_tokens(messages: list[Message], count: Count) -> int:
    """Tokens of a chat prompt: the contents plus a few tokens of template per message."""
    return sum(count(m["content"]) + 6 for m in messages) + 4


def prompt_limit(context_tokens: int, max_new_tokens: int) -> int:
    """Largest prompt that leaves room for the answer."""
    return context_tokens - max_new_tokens - _MARGIN


def split_lines(
    request: SummaryRequest,
    lines: list[Line],
    *,
    words: int,
    count: Count,
    context_tokens: int,
    max_new_tokens: int,
) -> list[list[Line]] | None:
    """The parts of ``lines`` (consecutive runs that each fit), or None when they fit whole.

    Raises:
        ConfigError: The context is too small to hold even the prompt and one short input.
    """
    limit = prompt_limit(context_tokens, max_new_tokens)
    if prompt_tokens(messages_for(request, lines, words=words), count) <= limit:
        return None
    budget = limit - prompt_tokens(messages_for(request, [], words=words, part=(99, 99)), count)
    if budget < 64:
        raise ConfigError(
            f"summarizer_context_tokens={context_tokens} leaves no room for input beside the "
            f"prompt and summarizer_max_new_tokens={max_new_tokens}"
        )
    groups: list[list[Line]] = [[]]
    used = 0
    for line in lines:
        line = _fit(line, budget, count)
        cost = count(line.text) + _LINE_OVERHEAD + (count(line.group) if line.group else 0)
        if groups[-1] and used + cost > budget:
            groups.append([])
            used = 0
        groups[-1].append(line)
        used += cost
    return groups


def _fit(line: Line, budget: int, count: Count) -> Line:
    """A line longer than a whole part is cut (only possible with a tiny context)."""
    tokens = count(line.text) + _LINE_OVERHEAD
    if tokens <= budget:
        return line
    keep = max(0.0, (budget - _LINE_OVERHEAD) / tokens * 0.9)
    return replace(line, text=line.text[: int(len(line.text) * keep)])


def combine_rounds(
    request: SummaryRequest, parts: list[list[Line]], *, words: int, count: Count, limit: int
) -> list[list[list[Line]]]:
    """How part summaries (as lines) are combined: one group when they fit one prompt."""
    groups: list[list[list[Line]]] = [[]]
    for part in parts:
        trial = [*groups[-1], part]
        flat = _numbered([line for p in trial for line in p])
        if (
            groups[-1]
            and prompt_tokens(combine_messages(request, flat, words=words), count) > limit
        ):
            groups.append([part])
        else:
            groups[-1] = trial
    return groups


def _numbered(lines: list[Line]) -> list[Line]:
    return [replace(line, number=i) for i, line in enumerate(lines, 1)]


@dataclass
class _Call:
    """One node's calls to the model: what they cost, and the model's answers checked."""

    model: ChatModel
    max_new_tokens: int
    input_tokens: int = 0
    output_tokens: int = 0

    async def text(self, messages: list[Message]) -> str:
        done = await self.model.complete(messages, max_tokens=self.max_new_tokens)
        self.input_tokens += done.input_tokens
        self.output_tokens += done.output_tokens
        text = clean_output(done.text)
        if not text:
            raise SummarizerError(f"{self.model.name} returned an empty summary")
        return text

    async def cited(self, messages: list[Message], lines: list[Line]) -> CitedSummary:
        """The answer with its citations checked; asked once more when some fail."""
        answer = parse_cited(await self.text(messages), lines)
        if answer.verified or not answer.sentences:
            return answer
        again = [
            *messages,
            {"role": "assistant", "content": " ".join(s.text for s in answer.sentences)},
            {"role": "user", "content": retry_note(answer.failed)},
        ]
        second = parse_cited(await self.text(again), lines)
        return second if len(second.failed) < len(answer.failed) and second.sentences else answer


async def summarize_request(
    request: SummaryRequest, model: ChatModel, *, words: int, max_new_tokens: int
) -> SummaryResult:
    """The summary of one node, in one call or in parts, its sentences cited and checked.

    Raises:
        SummarizerError: A call failed or the model returned nothing.
        ConfigError: The context window is too small for any input.
    """
    call = _Call(model, max_new_tokens)
    lines = numbered_lines(request)
    parts = split_lines(
        request,
        lines,
        words=words,
        count=model.count_tokens,
        context_tokens=model.context_tokens,
        max_new_tokens=max_new_tokens,
    )
    if parts is None:
        answer = await call.cited(messages_for(request, lines, words=words), lines)
        return _result(request, answer, call, parts=1)
    summaries = [
        renumbered(
            (
                await call.cited(messages_for(request, p, words=words, part=(i, len(parts))), p)
            ).sentences,
            f"Part {i}",
        )
        for i, p in enumerate(parts, 1)
    ]
    answer = await _combined(request, summaries, call, words=words)
    return _result(request, answer, call, parts=len(parts))


async def _combined(
    request: SummaryRequest, summaries: list[list[Line]], call: _Call, *, words: int
) -> CitedSummary:
    """The part summaries combined into the node's, in as many rounds as the context needs."""
    model = call.model
    limit = prompt_limit(model.context_tokens, call.max_new_tokens)
    while True:
        rounds = combine_rounds(
            request, summaries, words=words, count=model.count_tokens, limit=limit
        )
        if len(rounds) == 1:
            flat = _numbered([line for p in rounds[0] for line in p])
            return await call.cited(combine_messages(request, flat, words=words), flat)
        if len(rounds) == len(summaries):  # no progress possible: every summary alone is too long
            raise SummarizerError(
                f"the part summaries of this {request.level} do not fit "
                f"summarizer_context_tokens={model.context_tokens}"
            )
        merged: list[list[Line]] = []
        for g in rounds:
            if len(g) == 1:
                merged.append(g[0])
                continue
            flat = _numbered([line for p in g for line in p])
            done = await call.cited(combine_messages(request, flat, words=words), flat)
            merged.append(renumbered(done.sentences, f"Part {len(merged) + 1}"))
        summaries = merged


def _result(
    request: SummaryRequest, answer: CitedSummary, call: _Call, *, parts: int
) -> SummaryResult:
    if not answer.sentences:
        raise SummarizerError("the model's answer holds no sentence")
    return SummaryResult.of_sentences(
        request.key,
        answer.sentences,
        input_tokens=call.input_tokens,
        output_tokens=call.output_tokens,
        parts=parts,
    )
