"""Sentence splitting for the extractive summarizer (cheap, regex-based, offset-free)."""

from __future__ import annotations

import re

_SPLIT = re.compile(
    r"(?<=[.!?])[\"')\]]?\s+(?=[A-Z0-9\"'(\[])|\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)])\s)"
)
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)]|#+)\s+")
_WORDS = re.compile(r"[A-Za-z]{2,}")


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` with list markers removed and whitespace collapsed."""
    out: list[str] = []
    for raw in _SPLIT.split(text):
        if not raw:
            continue
        s = _LIST_MARK.sub("", raw.strip())
        s = " ".join(s.split())
        if s:
            out.append(s)
    return out


def is_prose(sentence: str) -> bool:
    """True for a sentence worth quoting in a summary (not a table row, code line or fragment)."""
    if sentence.count("|") >= 2 or sentence.startswith(("```", "<", "{", "$ ")):
        return False
    words = _WORDS.findall(sentence)
    return len(words) >= 4 and len(sentence) <= 600
