"""Lexical tokens for BM25: words, light stems, and codes kept whole.

Manuals are searched by codes and values that a plain word tokenizer breaks apart: ``E-17``
becomes ``e`` and ``17``, ``PX-2010-A`` three fragments, ``42.5`` two numbers. A code (word
characters joined by ``-``, ``.``, ``/`` or ``:``) is therefore kept as one token *and* split into
its parts, so "E-17" matches exactly while "seal kit PX-2010" still matches "PX-2010-A" in part.
Words get a light suffix-stripping stem (plural, ``-ing``, ``-ed``, ``-ation``…): no stemming
library is a dependency, and a light stemmer loses less precision on technical vocabulary.
"""

from __future__ import annotations

import importlib.util
import re
import unicodedata
from functools import lru_cache


def _bm25s_stopwords() -> frozenset[str]:
    """bm25s's English stop words, read from its ``stopwords`` module alone: importing the
    package imports scipy, half a second of a cold ``overstory query``."""
    package = importlib.util.find_spec("bm25s")
    if package is None or not package.submodule_search_locations:
        raise ImportError("bm25s is not installed: pip install bm25s")
    spec = importlib.util.spec_from_file_location(
        "_overstory_bm25s_stopwords",
        f"{list(package.submodule_search_locations)[0]}/stopwords.py",
    )
    if spec is None or spec.loader is None:
        raise ImportError("bm25s.stopwords not found: pip install --upgrade bm25s")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return frozenset(module.STOPWORDS_EN_PLUS)


_STOPWORDS = _bm25s_stopwords() | {"also", "may", "must", "would", "could", "use"}
_CODE = re.compile(r"[^\W_]+(?:[-./:][^\W_]+)*")
_PART = re.compile(r"[-./:]")

# (suffix, replacement, shortest stem left): first match wins, so longer suffixes come first.
_INFLECTIONS: tuple[tuple[str, str, int], ...] = (
    ("ings", "", 3),
    ("ing", "", 3),
    ("ies", "y", 2),
    ("ied", "y", 2),
    ("edly", "", 3),
    ("ed", "", 3),
    ("ly", "", 4),
    ("sses", "ss", 2),
    ("xes", "x", 2),
    ("ches", "ch", 2),
    ("shes", "sh", 2),
    ("s", "", 3),
)
_DERIVATIONS: tuple[tuple[str, str, int], ...] = (
    ("ization", "ize", 3),
    ("ational", "ate", 3),
    ("ation", "", 4),
    ("ment", "", 4),
    ("ate", "", 4),
    ("at", "", 4),
    ("er", "", 4),
)
_KEEP_S = ("ss", "us", "is", "ous")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")


def _strip(word: str, rules: tuple[tuple[str, str, int], ...]) -> str:
    for suffix, repl, keep in rules:
        if word.endswith(suffix) and len(word) - len(suffix) >= keep:
            if suffix == "s" and word.endswith(_KEEP_S):
                return word
            return word[: len(word) - len(suffix)] + repl
    return word


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """A light English stem: ``lubricate(d)``, ``lubricating``, ``lubrication`` → ``lubric``."""
    if len(word) <= 3 or not word.isalpha():
        return word
    word = _strip(word, _INFLECTIONS)
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]  # stopp(ed) → stop
    word = _strip(word, _DERIVATIONS)
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """BM25 tokens of ``text``: lower-cased stems without stop words, codes whole and in parts."""
    text = _THOUSANDS.sub("", unicodedata.normalize("NFKC", text).lower())
    out: list[str] = []
    for match in _CODE.finditer(text):
        token = match.group()
        if _PART.search(token):
            out.append(token)
            out.extend(_word(p) for p in _PART.split(token) if _useful(p))
        elif _useful(token):
            out.append(_word(token))
    return out


def _useful(token: str) -> bool:
    return token not in _STOPWORDS and (len(token) > 1 or token.isdigit())


def _word(token: str) -> str:
    return stem(token) if token.isalpha() else token
