"""The sentence splitter: sentences with their character offsets (cheap, regex-based).

A sentence never ends inside a parenthesis or bracket ("see set colorsequence (p. 207) for the
list"), after a common abbreviation ("e.g.", "Fig.", "No.") or after a list item's number ("4.
Edit the file."): a summary quoting half a cross-reference reads as garbage. A sentence may end
inside typographic quotes (“… does.” Next). Paragraph breaks and list items always end one.
Every piece keeps its ``[start, end)`` offsets into the text it was split from, so a summary
sentence can point back at exactly the characters it was taken from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SPLIT = re.compile(
    r"(?<=[.!?])([\"')\]’”]?)\s+(?=[A-Z0-9\"'(\[“‘])|\n\s*\n|\n(?=\s*(?:[-*+•◦▪]|\d+[.)])\s)"
)
_NOTE_MARK = re.compile(r"\[\d{1,3}\]")
_LIST_NUMBER = re.compile(r"\s*\d+[.)]")
_LIST_MARK = re.compile(r"^\s*(?:[-*+•◦▪]|\d+[.)]|#+)\s+")
_WORDS = re.compile(r"[A-Za-z]{2,}")
_LAST_WORD = re.compile(r"([A-Za-z]+(?:\.[A-Za-z]+)*)\.[\"')\]’”]?$")
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
        "viz",
    ]
)
# A sentence longer than this is split at the next sentence end even inside a parenthesis
# (an unbalanced "(" must not swallow a whole paragraph).
_MAX_SENTENCE = 600

# HTML elements a manual's text may carry; "<number>" in a syntax is no tag.
_TAGS = (
    "a|abbr|b|big|blockquote|br|code|dd|div|dl|dt|em|font|h[1-6]|hr|i|img|kbd|li|ol|p|pre|"
    "samp|small|span|strong|sub|sup|table|tbody|td|th|thead|tr|tt|u|ul|var"
)
_QUOTE_MARKS = re.compile(r"(?m)^[ \t]*>[ \t]?")
_MARKUP = [
    (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),  # [text](url), ![alt](src)
    (re.compile(rf"</?(?:{_TAGS})(?:\s[^>]*)?/?>", re.IGNORECASE), ""),  # HTML tags
    # **bold**, __bold__; "__TIME__", "__init__" are names (C's macros, Python's methods)
    (re.compile(r"\*\*(\S(?:.*?\S)?)\*\*|__(?!\w+__(?!\w))(\S(?:.*?\S)?)__"), r"\1\2"),
    (re.compile(r"(?<![\w*])\*(\S(?:[^*]*?\S)?)\*(?![\w*])"), r"\1"),  # *emphasis*
    (re.compile(r"<((?:https?|ftp|mailto):[^>\s]+|[^@\s<>]+@[^>\s]+)>"), r"\1"),  # <url>
    (re.compile(r"`([^`]*)`"), r"\1"),  # `code`
]


@dataclass(frozen=True)
class Piece:
    """A sentence of a text: its characters as written and where they are in that text."""

    text: str
    start: int
    end: int


# Abbreviations that close a list ("malloc/new et al.", "files, links etc.") often end the
# sentence too: they do when a capitalized word follows.
_CLOSING = frozenset(["etc", "al"])


# A capital letter alone before a period is an initial when a name follows ("in L. Lamport's
# book"); before a word that opens sentences it ends one ("… in Appendix A. The next …").
_INITIAL = re.compile(r"[A-Z]")
_NAME = re.compile(r"[A-Z](?:[a-z]+(?<!ly)\b|\.)")
_OPENERS = frozenset(
    [
        "A",
        "An",
        "The",
        "This",
        "That",
        "These",
        "Those",
        "It",
        "Its",
        "In",
        "On",
        "At",
        "If",
        "For",
        "To",
        "When",
        "Where",
        "While",
        "With",
        "As",
        "See",
        "You",
        "We",
        "They",
        "There",
        "Then",
        "Here",
        "Each",
        "All",
        "No",
        "Not",
        "Use",
        "Note",
    ]
)


def _continues(piece: str, after: str) -> bool:
    """Whether a sentence end found after ``piece`` is not one (open bracket, abbreviation,
    initial); ``after`` is the text that follows the break."""
    if len(piece) > _MAX_SENTENCE:
        return False
    if _LIST_NUMBER.fullmatch(piece):  # "4. Edit the file." is one sentence, not two
        return True
    if piece.count("(") > piece.count(")") or piece.count("[") > piece.count("]"):
        return True
    m = _LAST_WORD.search(piece)
    if m is not None and _INITIAL.fullmatch(m.group(1)):
        return _NAME.match(after) is not None and after.split(None, 1)[0] not in _OPENERS
    if m is None or m.group(1).lower() not in _ABBREVIATIONS:
        return False
    return not (m.group(1).lower() in _CLOSING and after[:1].isupper())


def sentence_spans(text: str, offset: int = 0) -> list[Piece]:
    """The sentences of ``text`` with their offsets (plus ``offset``), list markers left out."""
    out: list[Piece] = []
    start = 0

    def add(end: int) -> None:
        raw = text[start:end]
        mark = _LIST_MARK.match(raw)
        lead = mark.end() if mark else len(raw) - len(raw.lstrip())
        body = raw[lead:].rstrip()
        if body:
            out.append(Piece(body, offset + start + lead, offset + start + lead + len(body)))

    for m in _SPLIT.finditer(text):
        end = m.start() + len(m.group(1) or "")
        # group 1 is set only for a sentence end; paragraph and list breaks always split
        if m.group(1) is not None and _continues(text[start:end], text[m.end() : m.end() + 24]):
            continue
        add(end)
        start = m.end()
    add(len(text))
    return out


def statements_of(text: str, offset: int = 0) -> list[Piece]:
    """The sentences of a paragraph as a reader takes them: a note's mark left after the
    sentence it annotates ("… the 3.0 source format. [80]") is no sentence of its own, nor the
    paragraph's last (a citation a model writes after its sentence is, see ``citations``)."""
    return [p for p in sentence_spans(text, offset) if not _NOTE_MARK.fullmatch(p.text)]


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` with list markers removed and whitespace collapsed."""
    return [" ".join(p.text.split()) for p in sentence_spans(text)]


def strip_markup(sentence: str) -> str:
    """The sentence without Markdown/HTML markup: links as their text, no emphasis marks."""
    sentence = _QUOTE_MARKS.sub("", sentence)  # a block quote's markers, on every line
    sentence = " ".join(sentence.split())  # emphasis may span a line break
    for pattern, repl in _MARKUP:
        sentence = pattern.sub(repl, sentence)
    return " ".join(sentence.split())


def is_prose(sentence: str) -> bool:
    """True for a sentence worth quoting in a summary (not a table row, code line or fragment)."""
    if sentence.count("|") >= 2 or sentence.startswith(("```", "<", "{", "$ ")):
        return False
    words = _WORDS.findall(sentence)
    return len(words) >= 4 and len(sentence) <= 600
