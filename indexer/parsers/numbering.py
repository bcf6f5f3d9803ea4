"""Detect numbered section headings ("3", "3.2", "3.2.1 Title") in plain extracted text.

Used for plain-text files and for PDFs without an outline. The rules favour missing a heading
over inventing one: a candidate line must be short, carry a section number followed by a
capitalized title without a trailing period, and its number must plausibly follow the previous
accepted heading (so "1. Remove the cover" steps inside section 4.2 are not taken).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from indexer.parsers.tree_builder import Heading

MAX_HEADING_LEN = 80
MIN_HEADINGS = 2
# Chapter numbers beyond this are more likely years, part numbers or quantities.
_MAX_TOP_NUMBER = 99
_MAX_COMPONENT = 999
# How far a number may skip ahead of its predecessor (3.1 → 3.4) and still count.
_MAX_GAP = 3

_CANDIDATE = re.compile(r"(?P<num>\d{1,3}(?:\.\d{1,3})*)\.?[ \t]+(?P<title>\S.*?)\s*")
# Table-of-contents entries: dot leaders or a trailing page number.
_TOC_TAIL = re.compile(r"(?:\.\s*){3,}\d*$|\s\d+$")


@dataclass(frozen=True)
class _Line:
    start: int
    end: int
    text: str


def _lines(text: str) -> Iterator[_Line]:
    pos = 0
    for raw in text.splitlines(keepends=True):
        content = raw.rstrip("\r\n")
        yield _Line(pos, pos + len(content), content)
        pos += len(raw)


def _parse_candidate(line: str) -> tuple[int, ...] | None:
    """The section number of a heading-like line, or None."""
    if len(line) > MAX_HEADING_LEN:
        return None
    m = _CANDIDATE.fullmatch(line)
    if m is None:
        return None
    title = m.group("title")
    first = title[0]
    if not (first.isalpha() and first.isupper()):
        return None
    # Sentences and procedure steps end with punctuation; headings do not.
    if title[-1] in ".,;:!?" or _TOC_TAIL.search(title):
        return None
    if sum(c.isalpha() for c in title) < 3:  # "50 N·m", "2 A" are table cells, not titles
        return None
    number = tuple(int(part) for part in m.group("num").split("."))
    if number[0] == 0 or number[0] > _MAX_TOP_NUMBER or max(number) > _MAX_COMPONENT:
        return None
    return number


def follows(prev: tuple[int, ...] | None, number: tuple[int, ...]) -> bool:
    """Whether section ``number`` can come right after section ``prev``.

    Small gaps are tolerated (a heading lost by extraction must not derail the rest); going
    backwards, leaping ahead ("5" then "50") or more than one level deeper is not.

    Args:
        prev: The number of the previous accepted heading, or None for the first.
        number: The candidate's number.

    Returns:
        True when the candidate is a plausible next heading.
    """
    if prev is None:
        return True
    n = len(number)
    if n > len(prev) + 1:
        return False
    parent = number[:-1]
    if parent == prev[: n - 1]:
        if n == len(prev) + 1:  # first child of prev
            return 1 <= number[-1] <= _MAX_GAP
        return 0 < number[-1] - prev[n - 1] <= _MAX_GAP
    # A new parent whose own heading was missed: accept only its first child.
    return number[-1] == 1 and follows(prev, parent)


def find_numbered_headings(
    text: str,
    *,
    require_blank_before: bool,
    skip_line: Callable[[int], bool] | None = None,
) -> list[Heading]:
    """Find numbered headings in ``text``.

    Args:
        text: The extracted text.
        require_blank_before: Only accept a line preceded by a blank line (or the start of the
            text); right for plain text, wrong for PDF extraction, which has no blank lines.

    Returns:
        The headings (level = count of number components, title = the stripped line), or an
        empty list when fewer than two were found.
    """
    headings: list[Heading] = []
    prev_number: tuple[int, ...] | None = None
    prev_blank = True
    for line in _lines(text):
        stripped = line.text.strip()
        candidate_ok = prev_blank or not require_blank_before
        prev_blank = not stripped
        if not stripped or not candidate_ok:
            continue
        if require_blank_before and line.text[:1].isspace():
            continue  # indented: a list item or a table-of-contents entry
        number = _parse_candidate(stripped)
        if number is None or (skip_line is not None and skip_line(line.start)):
            continue
        if not follows(prev_number, number):
            if not (headings and stripped == headings[0].title):
                continue
            # The first heading again: what came before was a table of contents.
            headings.clear()
        body_start = min(line.end + 1, len(text))
        start = line.start + (len(line.text) - len(line.text.lstrip()))
        headings.append(Heading(len(number), stripped, start, body_start))
        prev_number = number
    return headings if len(headings) >= MIN_HEADINGS else []
