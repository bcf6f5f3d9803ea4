"""Sentence splitting for the extractive summarizer and the lint (cheap, regex-based).

A sentence never ends inside a parenthesis or bracket ("see set colorsequence (p. 207) for the
list") or after a common abbreviation ("e.g.", "Fig.", "No."): a summary quoting half a
cross-reference reads as garbage. Paragraph breaks and list items always end one.
"""

from __future__ import annotations

import re

_SPLIT = re.compile(
    r"(?<=[.!?])([\"')\]]?)\s+(?=[A-Z0-9\"'(\[])|\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)])\s)"
)
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)]|#+)\s+")
_WORDS = re.compile(r"[A-Za-z]{2,}")
_LAST_WORD = re.compile(r"([A-Za-z]+(?:\.[A-Za-z]+)*)\.[\"')\]]?$")
_ABBREVIATIONS = frozenset(
    [
        "p",
        "pp",
        "e.g",
        "i.e",
        "cf",
        "vs",
        "etc",
        "fig",
        "figs",
        "no",
        "nos",
        "sec",
        "ch",
        "vol",
        "eq",
        "eqs",
        "approx",
        "ref",
        "refs",
        "al",
        "ca",
        "resp",
        "dr",
        "mr",
        "mrs",
        "ms",
        "st",
        "ed",
        "eds",
    ]
)
# A sentence longer than this is split at the next sentence end even inside a parenthesis
# (an unbalanced "(" must not swallow a whole paragraph).
_MAX_SENTENCE = 600

_MARKUP = [
    (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),  # [text](url), ![alt](src)
    (re.compile(r"</?[A-Za-z][^>]*>"), ""),  # HTML tags
    (re.compile(r"(\*\*|__)(\S(?:.*?\S)?)\1"), r"\2"),  # **bold**
    (re.compile(r"`([^`]*)`"), r"\1"),  # `code`
]


def _continues(piece: str) -> bool:
    """Whether a sentence end found after ``piece`` is not one (open bracket, abbreviation)."""
    if len(piece) > _MAX_SENTENCE:
        return False
    if piece.count("(") > piece.count(")") or piece.count("[") > piece.count("]"):
        return True
    m = _LAST_WORD.search(piece)
    return bool(m and m.group(1).lower() in _ABBREVIATIONS)


def _pieces(text: str) -> list[str]:
    out: list[str] = []
    start = 0
    for m in _SPLIT.finditer(text):
        end = m.start() + len(m.group(1) or "")
        # group 1 is set only for a sentence end; paragraph and list breaks always split
        if m.group(1) is not None and _continues(text[start:end]):
            continue
        out.append(text[start:end])
        start = m.end()
    out.append(text[start:])
    return out


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` with list markers removed and whitespace collapsed."""
    out: list[str] = []
    for raw in _pieces(text):
        if not raw:
            continue
        s = _LIST_MARK.sub("", raw.strip())
        s = " ".join(s.split())
        if s:
            out.append(s)
    return out


def strip_markup(sentence: str) -> str:
    """The sentence without Markdown/HTML markup: links as their text, no emphasis marks."""
    for pattern, repl in _MARKUP:
        sentence = pattern.sub(repl, sentence)
    return " ".join(sentence.split())


def is_prose(sentence: str) -> bool:
    """True for a sentence worth quoting in a summary (not a table row, code line or fragment)."""
    if sentence.count("|") >= 2 or sentence.startswith(("```", "<", "{", "$ ")):
        return False
    words = _WORDS.findall(sentence)
    return len(words) >= 4 and len(sentence) <= 600
