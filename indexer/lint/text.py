"""Sentences with their offsets and clauses, for the checks (the words they compare are in
:mod:`indexer.words`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

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
    "stem",
    "words",
]

# No sentence ends at an abbreviation ("(e.g. Makefile Generators or Ninja)").
_BOUNDARY = re.compile(
    r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bcf\.)(?<!\bvs\.)(?<!\bviz\.)"
    r"(?<=[.!?])[\"')\]]?\s+(?=[A-Z0-9\"'(\[])|\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)])\s)|\n"
)
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)]|#+)\s+")
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
    """The sentences of ``text`` with their offsets (list markers are not part of a sentence)."""
    out: list[Span] = []
    pos = 0
    for match in [*_BOUNDARY.finditer(text), None]:
        end = match.start() if match else len(text)
        raw = text[pos:end]
        mark = _LIST_MARK.match(raw)
        lead = mark.end() if mark else 0
        body = raw[lead:]
        stripped = body.strip()
        if stripped:
            start = pos + lead + (len(body) - len(body.lstrip()))
            out.append(Span(stripped, start, start + len(stripped)))
        if match:
            pos = match.end()
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
