"""Words as the summaries' checks compare them: tokens, stop words, light stems.

Words are lower-cased and lightly stemmed (plural, past, gerund and adverb endings) so that a
paraphrase that says "recycled" for "recycles" still shares the word; identifiers such as
``max_wal_size`` or ``pg_ctl`` stay whole.
"""

from __future__ import annotations

import re

# Manuals write the apostrophe both ways ("isn't", "isn’t"): tokens and negations take either.
TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_'’-]*[A-Za-z0-9]|[A-Za-z]|\d+[A-Za-z]\w*")
STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "by",
        "from",
        "is",
        "are",
        "be",
        "been",
        "being",
        "was",
        "were",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "as",
        "into",
        "than",
        "then",
        "must",
        "should",
        "shall",
        "may",
        "can",
        "could",
        "will",
        "would",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "which",
        "who",
        "whom",
        "whose",
        "what",
        "there",
        "their",
        "they",
        "them",
        "he",
        "she",
        "his",
        "her",
        "we",
        "you",
        "your",
        "our",
        "also",
        "such",
        "so",
        "if",
        "when",
        "while",
        "not",
        "no",
        "only",
        "all",
        "any",
        "each",
        "every",
        "both",
        "either",
        "neither",
        "nor",
    ]
)
_SUFFIXES = ("ations", "ation", "ingly", "edly", "ings", "ing", "ies", "ied", "es", "ed", "ly", "s")


def stem(word: str) -> str:
    """A light stem: enough to match inflections, never a dictionary lookup."""
    w = word.lower().removesuffix("'s")
    if "_" in w or len(w) <= 4:
        return w
    if w.endswith(("ies", "ied")) and len(w) > 5:
        w = w[:-3] + "y"
    if w.endswith("y") and len(w) > 5:
        return w[:-1]
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            w = w[: -len(suffix)]
            break
    return w.rstrip("e") if len(w) > 4 else w


def words(text: str) -> list[str]:
    """The lower-cased word tokens of ``text``, in order."""
    return [m.group(0).lower() for m in TOKEN.finditer(text)]


def content(text: str) -> set[str]:
    """Stemmed content words of ``text`` (stop words and one-letter words left out)."""
    return {stem(w) for w in words(text) if w not in STOP and len(w) > 1}


PREFIX = 6  # two words sharing this many first letters are one word ("complain", "complaint")


def shared(a: set[str], b: set[str]) -> set[str]:
    """The words of ``a`` that ``b`` has, or has with the same first :data:`PREFIX` letters (a
    derivation the light stem leaves apart: "configure"/"configuration", "complain"/"complaint")."""
    heads = {w[:PREFIX] for w in b if len(w) >= PREFIX}
    return {w for w in a if w in b or (len(w) >= PREFIX and w[:PREFIX] in heads)}
