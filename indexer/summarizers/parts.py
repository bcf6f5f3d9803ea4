"""Long inputs: a node whose inputs do not fit the model's context is summarized in parts.

The inputs (the node's own passages, then its children's summaries, in order) are cut into
consecutive groups that each fit; each group is summarized with a "part i of n" prompt, and the
part summaries are combined into the node's summary (in several rounds if even they do not fit).
``SummaryResult.parts`` is the number of parts (1: the node was summarized in one call); it is
stored in the ``parts`` column of the summaries table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from indexer.errors import ConfigError, SummarizerError
from indexer.summarizers.base import SummaryRequest, SummaryResult
from indexer.summarizers.chat_model import ChatModel
from indexer.summarizers.prompts import Message, clean_output, combine_messages, messages_for

Count = Callable[[str], int]

# Tokens kept free besides the answer: chat-template tokens and the tokenizer estimate's error.
_MARGIN = 32
_ITEM_OVERHEAD = 4


def prompt_tokens(messages: list[Message], count: Count) -> int:
    """Tokens of a chat prompt: the contents plus a few tokens of template per message."""
    return sum(count(m["content"]) + 6 for m in messages) + 4


def prompt_limit(context_tokens: int, max_new_tokens: int) -> int:
    """Largest prompt that leaves room for the answer."""
    return context_tokens - max_new_tokens - _MARGIN


@dataclass
class _Item:
    passage: str | None
    child: tuple[str, str] | None
    tokens: int


def split_request(
    request: SummaryRequest,
    *,
    words: int,
    count: Count,
    context_tokens: int,
    max_new_tokens: int,
) -> list[SummaryRequest] | None:
    """The parts of ``request`` (each holding a run of its inputs), or None when it fits whole.

    Raises:
        ConfigError: The context is too small to hold even the prompt and one short input.
    """
    limit = prompt_limit(context_tokens, max_new_tokens)
    if prompt_tokens(messages_for(request, words=words), count) <= limit:
        return None
    empty = replace(request, passages=[], children=[])
    budget = limit - prompt_tokens(messages_for(empty, words=words, part=(99, 99)), count)
    if budget < 64:
        raise ConfigError(
            f"summarizer_context_tokens={context_tokens} leaves no room for input beside the "
            f"prompt and summarizer_max_new_tokens={max_new_tokens}"
        )
    items = [_Item(p, None, count(p) + _ITEM_OVERHEAD) for p in request.passages]
    items += [_Item(None, c, count(c[0]) + count(c[1]) + _ITEM_OVERHEAD) for c in request.children]
    groups: list[list[_Item]] = [[]]
    used = 0
    for item in items:
        item = _fit(item, budget)
        if groups[-1] and used + item.tokens > budget:
            groups.append([])
            used = 0
        groups[-1].append(item)
        used += item.tokens
    return [
        replace(
            request,
            passages=[i.passage for i in g if i.passage is not None],
            children=[i.child for i in g if i.child is not None],
        )
        for g in groups
    ]


def _fit(item: _Item, budget: int) -> _Item:
    """An input longer than a whole part is cut (only possible with a tiny context)."""
    if item.tokens <= budget:
        return item
    keep = max(0.0, (budget - _ITEM_OVERHEAD) / item.tokens * 0.9)
    if item.passage is not None:
        return _Item(item.passage[: int(len(item.passage) * keep)], None, budget)
    assert item.child is not None
    title, summary = item.child
    return _Item(None, (title, summary[: int(len(summary) * keep)]), budget)


def combine_rounds(
    request: SummaryRequest, summaries: list[str], *, words: int, count: Count, limit: int
) -> list[list[str]]:
    """How part summaries are combined: one group when they fit one prompt, else several."""
    groups: list[list[str]] = [[]]
    for s in summaries:
        trial = [*groups[-1], s]
        if (
            groups[-1]
            and prompt_tokens(combine_messages(request, trial, words=words), count) > limit
        ):
            groups.append([s])
        else:
            groups[-1] = trial
    return groups


async def summarize_request(
    request: SummaryRequest, model: ChatModel, *, words: int, max_new_tokens: int
) -> SummaryResult:
    """The summary of one node, in one call or in parts.

    Raises:
        SummarizerError: A call failed or the model returned nothing.
        ConfigError: The context window is too small for any input.
    """
    spent = [0, 0]

    async def call(messages: list[Message]) -> str:
        done = await model.complete(messages, max_tokens=max_new_tokens)
        spent[0] += done.input_tokens
        spent[1] += done.output_tokens
        text = clean_output(done.text)
        if not text:
            raise SummarizerError(f"{model.name} returned an empty summary")
        return text

    parts = split_request(
        request,
        words=words,
        count=model.count_tokens,
        context_tokens=model.context_tokens,
        max_new_tokens=max_new_tokens,
    )
    if parts is None:
        text = await call(messages_for(request, words=words))
        return SummaryResult(request.key, text, input_tokens=spent[0], output_tokens=spent[1])
    summaries = [
        await call(messages_for(p, words=words, part=(i, len(parts))))
        for i, p in enumerate(parts, 1)
    ]
    limit = prompt_limit(model.context_tokens, max_new_tokens)
    while True:
        rounds = combine_rounds(
            request, summaries, words=words, count=model.count_tokens, limit=limit
        )
        if len(rounds) == 1:
            text = await call(combine_messages(request, rounds[0], words=words))
            break
        if len(rounds) == len(summaries):  # no progress possible: every summary alone is too long
            raise SummarizerError(
                f"the part summaries of this {request.level} do not fit "
                f"summarizer_context_tokens={model.context_tokens}"
            )
        summaries = [
            await call(combine_messages(request, g, words=words)) if len(g) > 1 else g[0]
            for g in rounds
        ]
    return SummaryResult(
        request.key, text, input_tokens=spent[0], output_tokens=spent[1], parts=len(parts)
    )
