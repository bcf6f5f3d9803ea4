"""What a user calls a part of a document: its heading's number and words, a document's name.

"3.2 Redirections", "Chapter 5. Network setup" and "Appendix A Glossary" are named in questions
as "section 3.2", "the network setup chapter", "appendix A": the number and the words of a
heading, without the word for its level. A document without a title is called by its file's
words ("bzip2/manual.pdf.gz" is "the bzip2 manual").
"""

from __future__ import annotations

import re
from functools import lru_cache

from retriever.tokenize import tokenize

_NUMBER = re.compile(r"^(\d+|[A-Z])(\.\d+)*[.:)]?$")
# a bare letter opens a heading as a number only when marked as one ("A." or "A.1", not "A Note")
_LETTER = re.compile(r"^[A-Z]([.:)]|(\.\d+)+\.?)$")
_ROMAN = re.compile(r"^(?=[IVXL])L?X{0,3}(?:IX|IV|V?I{0,3})[.:)]?$")
_LEVEL_WORDS = frozenset({"chapter", "section", "part", "appendix", "subsection", "§"})
_SUFFIXES = (".gz", ".pdf", ".html", ".htm", ".md", ".markdown", ".txt")


@lru_cache(maxsize=65_536)
def heading_parts(title: str) -> tuple[str | None, frozenset[str]]:
    """A heading's number ("3.2", "5", "A"; None when it has none) and its words, without
    numbers and level words."""
    tokens = title.split()
    number = None
    rest = []
    for i, token in enumerate(tokens):
        if number is None and _numbers(i, token, tokens):
            number = token.rstrip(".:)")
        elif not (i == 0 and _is_level(token)):
            rest.append(token)
    return number, frozenset(tokenize(" ".join(rest)))


def _numbers(i: int, token: str, tokens: list[str]) -> bool:
    if i == 1 and _is_level(tokens[0]):
        return bool(_NUMBER.match(token) or _ROMAN.match(token))
    if i == 0:
        if len(tokens) > 1 and _ROMAN.match(token):  # "II Plotting styles" (a part's number)
            return True
        return bool(_NUMBER.match(token)) and (token[0].isdigit() or bool(_LETTER.match(token)))
    return False


def _is_level(token: str) -> bool:
    return token.casefold() in _LEVEL_WORDS


def document_name(doc_id: str) -> str:
    """The words of a document's id, for a document without a title ("bzip2/manual.pdf.gz"
    reads "bzip2 manual"): what a user calls a manual when asking about it by name."""
    stem = doc_id
    for suffix in _SUFFIXES:
        stem = stem.removesuffix(suffix)
    return " ".join(w for w in re.split(r"[/_.\-]+", stem) if w)


def node_name(title: str | None, doc_id: str, *, root: bool) -> str | None:
    """What a node is called: its heading, or for a root without one, its document's name."""
    return title or (document_name(doc_id) if root else None)
