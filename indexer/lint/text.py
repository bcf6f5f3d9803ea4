"""Sentences with their offsets and clauses, for the checks (the words they compare are in
:mod:`indexer.words`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexer.summarizers.blocks import Block, blocks_of
from indexer.summarizers.sentences import sentence_spans
from indexer.words import PREFIX, STOP, TOKEN, content, shared, stem, words

__all__ = [
    "PREFIX",
    "STOP",
    "TOKEN",
    "Span",
    "clauses",
    "content",
    "find_phrase",
    "has_phrase",
    "sentences",
    "shared",
    "source_sentences",
    "stem",
    "words",
]

_CLAUSE = re.compile(
    r";\s+|,\s+(?=(?:and|but|while|whereas|so|yet|though|although|which|because)\b)|\s+but\s+"
    r"|\s+and\s+(?=(?:[\w-]+\s+){1,3}(?:is|are|was|were|can|will|does|do|has|have)\b)"
)


@dataclass(frozen=True)
class Span:
    """A piece of a text: its characters and where they are in the text they come from."""

    text: str
    start: int
    end: int


def sentences(text: str) -> list[Span]:
    """The sentences of ``text`` with their offsets, by the one sentence splitter the summaries
    are quoted with; a line break ends a sentence too (a summary's lines, a list's entries)."""
    out: list[Span] = []
    pos = 0
    for line in text.split("\n"):
        out += [Span(p.text, p.start, p.end) for p in sentence_spans(line, pos)]
        pos += len(line) + 1
    return out


# Blocks whose lines are lines of prose, wrapped: their sentences run on across line breaks.
_WRAPPED = frozenset(["paragraph", "item"])


def source_sentences(text: str) -> list[Span]:
    """The sentences of a source text as the summarizer reads them: a paragraph's or a list
    item's wrapped lines joined ("will not have\naccess to any" is one sentence), code, table
    rows and headings line by line. Each sentence's words are joined by single spaces (what a
    summary quoting it writes); its offsets are where it lies in ``text``."""
    out: list[Span] = []
    for block in blocks_of(text, 0):
        if block.kind in _WRAPPED:
            pieces = sentence_spans(block.text, block.start)
        else:
            pieces = [p for line, at in _lines(block) for p in sentence_spans(line, at)]
        out += [Span(" ".join(p.text.split()), p.start, p.end) for p in pieces]
    return out


def _lines(block: Block) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    at = block.start
    for line in block.text.split("\n"):
        out.append((line, at))
        at += len(line) + 1
    return out


def clauses(sentence: str) -> list[Span]:
    """The clauses of a sentence: split at semicolons and at contrasting conjunctions."""
    out: list[Span] = []
    pos = 0
    for match in [*_CLAUSE.finditer(sentence), None]:
        end = match.start() if match else len(sentence)
        piece = sentence[pos:end].strip()
        if piece:
            start = sentence.index(piece, pos)
            out.append(Span(piece, start, start + len(piece)))
        if match:
            pos = match.end()
    return out


def has_phrase(text: str, phrase: str) -> bool:
    """True when ``phrase`` occurs in ``text`` as whole words (case-insensitive)."""
    return find_phrase(text, phrase) is not None


def find_phrase(text: str, phrase: str) -> Span | None:
    """The first whole-word occurrence of ``phrase`` in ``text`` (case-insensitive)."""
    m = re.search(rf"(?<![\w']){re.escape(phrase)}(?![\w'])", text, re.IGNORECASE)
    return Span(m.group(0), m.start(), m.end()) if m else None
