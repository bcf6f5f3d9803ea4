"""Prompts of the language-model backends, one per tree level, versioned.

The version (with the length target, which is part of the prompt) goes into the summarizer's
identity and so into every cache key: editing a prompt here without bumping ``PROMPT_VERSION``
would serve summaries written by the old prompt.
"""

from __future__ import annotations

import re

from indexer.summarizers.base import SummaryRequest
from indexer.summarizers.citations import Line, render_lines

# v2: numbered source lines; every sentence cites the lines it restates.
PROMPT_VERSION = "llm-v2"

Message = dict[str, str]

_SYSTEM = (
    "You summarize parts of technical manuals for engineers and support staff. "
    "Faithfulness matters more than style.\n"
    "Rules:\n"
    "1. Use only what the text says. Do not add facts, advice, values or steps.\n"
    "2. Copy every number, unit, range, tolerance, part number, model name and error code "
    "exactly as written.\n"
    '3. Keep every condition exactly ("if", "unless", "only when", "except", "before", "after") '
    'and every negation ("not", "no", "never", "do not").\n'
    '4. Do not generalize: write "always", "never" or "all" only where the text does.\n'
    "5. Write plain sentences: no title, no preamble, no list of rules.\n"
    "6. Every input line starts with its number in brackets. End every sentence you write with "
    "the numbers of the lines it restates, like [3] or [2][5]."
)

_TASK = {
    "section": "Summarize this section in at most {words} words. Keep its procedure steps, "
    "limits, values and warnings.",
    "chapter": "Summarize this chapter in at most {words} words, from its own text and the "
    "summaries of its sections. Say what it covers, then its key values, limits and warnings.",
    "document": "Summarize this whole document in at most {words} words, from the summaries of "
    "its chapters. Say what it is for and what it covers, then the most important values, "
    "limits and warnings.",
    "cluster": "These passages were grouped by topic from a document without headings. "
    "Summarize what they say in at most {words} words, naming the topic first.",
}

_PART = (
    "This is part {part} of {parts} of the {level} below; the other parts are summarized "
    "separately. Summarize only this part, in at most {words} words."
)

_COMBINE = (
    "Below are summaries of consecutive parts of one {level}. Combine them into one summary of "
    "the whole {level} in at most {words} words, keeping every value, condition and warning "
    "they state."
)


def prompt_version(words: int) -> str:
    """The prompt version recorded with each summary, e.g. ``llm-v1-120w``."""
    return f"{PROMPT_VERSION}-{words}w"


def words_for(summary_tokens: int) -> int:
    """Length target in words for a target in (WordPiece) tokens: about 0.75 word per token."""
    return max(10, round(summary_tokens * 0.75))


def _where(request: SummaryRequest) -> str:
    path = " > ".join(request.heading_path) or request.title or "(untitled)"
    return f"{request.level.capitalize()}: {path}"


def render_inputs(lines: list[Line], *, child_label: str = "Summaries") -> str:
    """The source material of a node as numbered lines: its own text, then its children's
    summaries under their titles."""
    own = [line for line in lines if line.group is None]
    children = [line for line in lines if line.group is not None]
    blocks: list[str] = []
    if own:
        blocks.append("Text:\n" + render_lines(own))
    if children:
        blocks.append(f"{child_label}:\n" + render_lines(children))
    return "\n\n".join(blocks)


def messages_for(
    request: SummaryRequest,
    lines: list[Line],
    *,
    words: int,
    part: tuple[int, int] | None = None,
) -> list[Message]:
    """Chat messages asking for the summary of ``request`` (or of one part of it).

    Args:
        request: The node.
        lines: Its numbered source lines (all of them, or one part's).
        words: Length target.
        part: ``(index, count)``, 1-based, when ``lines`` hold only one part of the inputs.
    """
    task = _TASK.get(request.level, _TASK["section"]).format(words=words)
    if part is not None:
        task = _PART.format(part=part[0], parts=part[1], level=request.level, words=words)
    label = "Summaries of its sections" if request.level != "cluster" else "Summaries of sub-topics"
    body = render_inputs(lines, child_label=label)
    user = f"{task}\n\n{_where(request)}\n\n{body}"
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


def combine_messages(request: SummaryRequest, lines: list[Line], *, words: int) -> list[Message]:
    """Chat messages combining the summaries of a node's parts (as numbered lines, grouped by
    part) into the node's summary."""
    task = _COMBINE.format(level=request.level, words=words)
    body = render_lines(lines)
    user = f"{task}\n\n{_where(request)}\n\n{body}"
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


_ECHO = re.compile(r"^(?:(?:Section|Chapter|Document|Cluster): [^\n]*|Text:)\s*\n", re.IGNORECASE)


def clean_output(text: str) -> str:
    """The model's answer without a leading label ("Summary:"), without the prompt's own header
    lines when a small model echoes them, and without surrounding whitespace."""
    out = text.strip()
    while (m := _ECHO.match(out)) is not None:
        out = out[m.end() :].lstrip()
    for label in ("Summary:", "**Summary:**", "Summary -"):
        if out.startswith(label):
            out = out[len(label) :].strip()
    return out
