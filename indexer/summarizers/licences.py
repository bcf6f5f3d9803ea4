"""What a licence text says of itself: its version, what it is for, and its clauses by title.

A licence's clauses are not quoted one by one (out of context they mislead), but a reader of its
summary should learn which licence it is, what it sets out to do and what it deals with.
Licences state the first two before their first clause: a version line under the title
("Version 3, 29 June 2007") and a first statement of purpose ("The purpose of this License is
to make a manual … free"). The copyright notice and the permission to copy the licence document
itself say nothing of the licence. Their clauses are numbered from 0 or 1, each under a short
title ("2. VERBATIM COPYING", "11. Patents."), set as a line of text rather than a heading; a
numbered line out of that sequence is an item inside a clause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexer.summarizers.blocks import blocks_of
from indexer.summarizers.cues import leans_back
from indexer.summarizers.sentences import sentence_spans, strip_markup
from indexer.tokens import count_tokens

MAX_PURPOSE = 70  # tokens: a longer first statement is a clause, not a statement of purpose
MIN_WORDS = 8  # fewer: a heading or a label ("0. PREAMBLE", "1. Definitions.")
MIN_CLAUSES = 3
MAX_CLAUSE_WORDS = 8

_CLAUSE = re.compile(r"^(\d{1,2})\.\s+([A-Z][^\n]*?)\.?$")

_VERSION = re.compile(r"^\s*version\s+\d+(?:\.\d+)*(?:,\s*[^\n]{1,40})?\s*$", re.IGNORECASE)
_NOTICE = re.compile(
    r"copyright|©|\(c\)|all rights reserved|permitted to copy|verbatim copies|https?://",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Said:
    """A line or sentence of the licence: its text and where it is in the node."""

    text: str
    span: tuple[int, int]


def version_of(runs: list[tuple[int, str]]) -> Said | None:
    """The licence's first version line ("Version 1.3, 3 November 2008"), if it has one."""
    for start, text in runs:
        pos = 0
        for line in text.split("\n"):
            if _VERSION.match(line):
                at = start + pos + (len(line) - len(line.lstrip()))
                return Said(line.strip(), (at, at + len(line.strip())))
            pos += len(line) + 1
    return None


def purpose_of(runs: list[tuple[int, str]]) -> Said | None:
    """The licence's first statement, if it is a complete sentence standing on its own: what
    the licence is, or what it is for. None when its first statement is a clause too long to
    read as one ("Permission is hereby granted, free of charge, to any person …")."""
    for start, text in runs:
        for block in blocks_of(text, start):
            if block.kind != "paragraph":
                continue
            pieces = sentence_spans(block.text, block.start)
            if not pieces:
                continue
            first = pieces[0]
            said = strip_markup(first.text)
            if _VERSION.match(said) or _NOTICE.search(said):
                continue
            if len(said.split()) < MIN_WORDS or not said.endswith("."):
                continue  # a heading, a label, a line cut short
            if leans_back(said) or count_tokens(said) > MAX_PURPOSE:
                return None
            return Said(said, (first.start, first.end))
    return None


def clauses_of(runs: list[tuple[int, str]]) -> list[Said]:
    """The titles of the licence's numbered clauses, in order ("PREAMBLE", "VERBATIM COPYING");
    none when fewer than three follow each other from 0 or 1."""
    out: list[Said] = []
    expected: int | None = None
    for start, text in runs:
        pos = 0
        for line in text.split("\n"):
            at, pos = start + pos + len(line) - len(line.lstrip()), pos + len(line) + 1
            found = _CLAUSE.match(line.strip())
            if found is None or len(found.group(2).split()) > MAX_CLAUSE_WORDS:
                continue
            number = int(found.group(1))
            if (expected is None and number in (0, 1)) or number == expected:
                out.append(Said(found.group(2), (at, at + len(line.strip()))))
                expected = number + 1
    return out if len(out) >= MIN_CLAUSES else []
