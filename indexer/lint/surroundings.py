"""Where a quoted sentence sits in its source: what around its span it may lean on.

Offsets into the document's text: the sentence before it in its paragraph (or list item), the
short line of the term whose entry it opens, the lead-in of the list it is an item of, the first
cell of its table row, the list a lead-in announces; and whether the ranges a summary cites hold
one of them. Read by the dependency check (:mod:`indexer.lint.dependency`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from indexer.summarizers.sentences import sentence_spans
from indexer.words import content

_BEFORE = 600
_LEAD_IN_REACH = 2000
# A sentence the summary quotes most of counts as quoted.
_COVERED = 0.8
# What may lie between a lead-in and the quote of what it announces: blanks and list markers.
_NEXT = 40
_GAP = " \t\n-*•>|"
_LABEL_WORDS = 8
# A definition list's term: a few words on a line of their own, not a sentence, a prompt's
# command or a heading's markup.
_TERM_WORDS = 4
_NOT_TERM = re.compile(r"[.!?:;,]\s*$|^\s*(?:\$|#|>)")
_ITEM = re.compile(r"^\s*(?:[-*•+]|\d{1,3}[.)]|[A-Za-z][.)]|\(\w{1,3}\))\s+")
_FENCE = re.compile(r"^(?:```|~~~)")
_END = re.compile(r"[.!?:;,]\s*$")
_ANNOUNCED_CHARS = 320


def paragraph_start(text: str, start: int) -> int:
    """Where the paragraph holding ``start`` begins (after a blank line, at most
    :data:`_BEFORE` characters back)."""
    lo = max(0, start - _BEFORE)
    cut = text.rfind("\n\n", lo, start)
    return cut + 2 if cut != -1 else lo


def previous_sentence(text: str, start: int) -> tuple[int, int] | None:
    """Where the sentence right before ``start`` in the same paragraph (and list item) lies."""
    offset = paragraph_start(text, start)
    line = text.rfind("\n", offset, start) + 1
    if line and _ITEM.match(text[line:start]):
        offset = max(offset, line)  # an item's first sentence opens it
    pieces = sentence_spans(text[offset:start])
    return (offset + pieces[-1].start, offset + pieces[-1].end) if pieces else None


def label_before(text: str, start: int, labels: Sequence[str]) -> tuple[int, int] | None:
    """The short line before the paragraph ``start`` opens (a term whose entry it opens), or
    None when ``start`` does not open its paragraph or that line is the node's own heading."""
    para = paragraph_start(text, start)
    if text[para:start].strip(" \t\n-*•>"):
        return None  # the sentence does not open its paragraph
    prev_end = text.rfind("\n\n", 0, para)
    if prev_end == -1 or para - prev_end > 2 + _BEFORE:
        return None
    block_start = text.rfind("\n\n", 0, prev_end)
    block_start = block_start + 2 if block_start != -1 else 0
    block = text[block_start:prev_end]
    lines = [ln for ln in block.splitlines() if ln.strip()]
    if not lines or len(lines) > 3 or any(len(ln.split()) > _LABEL_WORDS for ln in lines):
        return None
    if any(_END.search(ln) for ln in lines) or lines[0].lstrip().startswith("#"):
        return None  # a sentence, a lead-in or a heading, not a term
    words = content(block)
    if any(words and words == content(label) for label in labels):
        return None  # the node's heading: the reader has it
    first = block_start + len(block) - len(block.lstrip())
    return first, prev_end


def head(term: str) -> set[str]:
    """The words of a term's first token: the name in "--rcfile filename", "history [n]"."""
    tokens = term.split()
    return content(tokens[0]) if tokens else set()


def lead_in(text: str, start: int) -> tuple[int, int] | None:
    """The lead-in ("…:") of the list whose item holds ``start``, or None when ``start`` is not
    in a list item."""
    line_start = text.rfind("\n", 0, start) + 1
    if not _ITEM.match(text[line_start:start] + " x"):
        return None
    lo = max(0, line_start - _LEAD_IN_REACH)
    pos = line_start
    while pos > lo:
        prev = text.rfind("\n", lo, pos - 1) + 1
        line = text[prev : pos - 1]
        if line.rstrip().endswith(":"):
            # The lead-in's sentence may be wrapped over the lines above it.
            para = paragraph_start(text, prev)
            sentences = sentence_spans(text[para : pos - 1], para)
            last = sentences[-1] if sentences else None
            return (last.start, last.end) if last else (prev, pos - 1)
        pos = prev
        if pos == 0:
            break
    return None


def first_cell(text: str, start: int) -> tuple[int, int] | None:
    """The first cell of the table row holding ``start``, when ``start`` is in a later cell."""
    line_start = text.rfind("\n", 0, start) + 1
    prefix = text[line_start:start]
    cells = [m.start() for m in re.finditer(r"\|", prefix)]
    if len(cells) < 2 or not prefix.lstrip().startswith("|"):
        return None
    a, b = cells[0] + 1, cells[1]
    raw = prefix[a:b]
    if not raw.strip():
        return None
    lead = len(raw) - len(raw.lstrip())
    return line_start + a + lead, line_start + a + len(raw.rstrip())


def covered(where: tuple[int, int], cited: Sequence[tuple[int, int]]) -> bool:
    """Whether the cited ranges hold most of ``where``'s characters."""
    lo, hi = where
    inside = sum(max(0, min(hi, b) - max(lo, a)) for a, b in cited)
    return hi > lo and inside >= _COVERED * (hi - lo)


def follows(text: str, end: int, cited: Sequence[tuple[int, int]]) -> bool:
    """Whether a cited range starts right after ``end``: past blank space and a list marker
    ("-", "1.", "(a)"), or at the description of a definition list's first term (the term on
    a short line of its own: "‘a23’" over "An Ultrix 4.2 platform …")."""
    return any(end <= a <= stop + 1 for a, _ in cited for stop in _first_entry(text, end))


def _first_entry(text: str, end: int) -> tuple[int, ...]:
    """Where what follows ``end`` starts: past blanks and an item's marker, and, when that is a
    short term line, where its description starts."""
    rest = text[end : end + _NEXT]
    at = end + len(rest) - len(rest.lstrip(_GAP))
    marker = _ITEM.match(text[at : at + _NEXT])
    if marker:
        at += marker.end()
    described = _description(text, at)
    if described is None or _description(text, _next_block(text, described)) is None:
        return (at,)  # no term over a description, or no second one: not a definition list
    return at, described


def _description(text: str, at: int) -> int | None:
    """Where the description starts when a short term line ("compile", "‘a23’") starts at
    ``at`` with a paragraph below it; else None."""
    line_end = text.find("\n", at)
    if line_end == -1:
        return None
    term = text[at:line_end]
    if not term.strip() or len(term.split()) > _TERM_WORDS or _NOT_TERM.search(term):
        return None
    after = text[line_end : line_end + _NEXT]
    start = line_end + len(after) - len(after.lstrip())
    return start if start > line_end and text[start : start + 1].strip() else None


def _next_block(text: str, at: int) -> int:
    """Where the paragraph after the one holding ``at`` starts (``len(text)`` when none)."""
    cut = text.find("\n\n", at)
    if cut == -1:
        return len(text)
    rest = text[cut:]
    return cut + len(rest) - len(rest.lstrip())


def _items(text: str, end: int) -> list[tuple[int, int]]:
    """The items of the list right after ``end`` (its lines, up to a paragraph of prose)."""
    out: list[tuple[int, int]] = []
    pos = end
    fence = _FENCE.match(text[end:].lstrip())
    if fence:  # a code block: its lines up to the closing fence
        open_at = end + len(text[end:]) - len(text[end:].lstrip())
        close = text.find(fence.group(0), open_at + 3)
        stop = close if close != -1 else min(len(text), open_at + _ANNOUNCED_CHARS)
        return [(a, a + len(line)) for a, line in _lines(text, open_at, stop) if line.strip()]
    while pos < len(text) and len(out) < 50:
        nl = text.find("\n", pos)
        stop = nl if nl != -1 else len(text)
        line = text[pos:stop]
        if line.strip():
            if out and not _ITEM.match(line) and not line.startswith((" ", "\t")):
                break
            out.append((pos + len(line) - len(line.lstrip()), stop))
        elif out and not _ITEM.match(text[stop + 1 : stop + 40] + " "):
            break
        pos = stop + 1
    return out


def _lines(text: str, start: int, stop: int) -> list[tuple[int, str]]:
    """The lines of ``text[start:stop]`` with where each starts."""
    out: list[tuple[int, str]] = []
    pos = start
    for line in text[start:stop].split("\n"):
        out.append((pos, line))
        pos += len(line) + 1
    return out


def announced(text: str, end: int) -> str:
    """What a lead-in announces, in one line (its list's items joined)."""
    lines = [" ".join(text[a:b].split()) for a, b in _items(text, end)]
    lines = [line for line in lines if not _FENCE.match(line)]
    if lines:
        return "; ".join(lines[:6])
    return " ".join(text[end : end + _ANNOUNCED_CHARS].split())


def share_cited(text: str, end: int, cited: Sequence[tuple[int, int]]) -> float:
    """The share of the announced list's items the summary quotes (1 with no list)."""
    items = [i for i in _items(text, end) if _ITEM.match(text[i[0] : i[1]])]
    if not items:
        return 1.0
    return sum(any(a < hi and lo < b for a, b in cited) for lo, hi in items) / len(items)
