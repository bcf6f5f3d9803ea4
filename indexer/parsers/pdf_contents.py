"""A PDF's printed table of contents as evidence of its headings.

Without an outline (bookmarks), the contents pages are the author's own list of headings and
the pages they start on. Their text is kept out of passages (``indexer.parsers.pdf_pages``),
but their entries — a title, then dot leaders or space, then a page number — say which lines
are headings: an entry is *confirmed* when a line on the printed page it names (or the next
one) reads as its title, ignoring case, spacing, punctuation and a section number the line
may carry or omit. Printed page numbers are mapped to page indexes by the offset most
entries agree on (front matter is usually numbered apart), so no running footer is needed.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from indexer.parsers.pdf_pages import REFERENCE_TITLE as _REFERENCE_TITLE

_ENTRY = re.compile(r"(?P<title>\S.*?)(?:\s*(?:\.\s*){3,}|\s+)(?P<page>\d{1,4})")
_NUMBER = re.compile(r"(?P<number>(?:[A-Z]|\d+)(?:\.\d+)*)\.?\s+(?=\S)")
_LABEL = re.compile(
    r"(?:(?:[A-Z]|\d+)(?:\.\d+)*\.?|(?:chapter|section|part|appendix)\s+\S+)\s+", re.I
)
_INDEX_LINE = re.compile(
    r"\S.*?,\s*\d{1,4}(?:\s*[-–]\s*\d{1,4})?(?:,\s*\d{1,4}(?:\s*[-–]\s*\d{1,4})?)*"
)
_MIN_CONFIRMED = 3
_MIN_SHARE = 0.5


@dataclass(frozen=True)
class ContentsEntry:
    """One confirmed contents entry: its title as printed, depth (1 = top) and 0-based page."""

    title: str
    depth: int
    page: int


def contents_entries(
    pages: list[str], cleaned: list[str], reference_pages: list[int]
) -> list[ContentsEntry]:
    """The entries of the contents pages confirmed on the pages they name, in order.

    Args:
        pages: The extracted page texts (before cleanup), where the entries are read.
        cleaned: The same pages after cleanup (``clean_pages``), where titles are confirmed:
            the entries themselves are gone from them, a heading after a chapter's own
            contents on the same page is not.
        reference_pages: Indexes of the contents/index pages (``clean_pages``).

    Returns:
        The confirmed entries; [] unless at least three and half of the entries are
        confirmed (an index or a list of figures is not a table of contents).
    """
    # A chapter's own contents repeats entries of the book's: each entry counts once.
    listed = [_page_entries(pages[p]) for p in reference_pages]
    entries = list(dict.fromkeys(e for found in listed if _in_page_order(found) for e in found))
    if len(entries) < _MIN_CONFIRMED:
        return []
    first_body = min(reference_pages) + 1
    lines = [_line_keys(page) for page in cleaned]
    offset = _offset(entries, lines, first_body)
    if offset is None:
        return []
    confirmed: list[ContentsEntry] = []
    for title, printed in entries:
        page = printed - offset
        key = title_key(title)
        for p in (page, page + 1):
            if first_body <= p < len(pages) and key in lines[p]:
                confirmed.append(ContentsEntry(title, _depth(title), p))
                break
    if len(confirmed) < max(_MIN_CONFIRMED, _MIN_SHARE * len(entries)):
        return []
    return confirmed


def _page_entries(text: str) -> list[tuple[str, int]]:
    """(title, printed page) of each entry line; a title wrapped onto two lines is joined."""
    out: list[tuple[str, int]] = []
    pending = ""
    for raw in text.split("\n"):
        line = " ".join(raw.split())
        match = _ENTRY.fullmatch(line)
        if match is None:
            # A title wrapped onto the next line; never the page's "Contents" heading.
            wrapped = line and len(line) < 80 and not _REFERENCE_TITLE.fullmatch(line)
            pending = line if wrapped else ""
            continue
        if _INDEX_LINE.fullmatch(line):
            pending = ""
            continue  # a back-of-book index entry ("asn1_create, 12"), not a heading
        title = match.group("title").rstrip(" .")
        if pending and not _NUMBER.match(title):
            title = f"{pending} {title}"
        pending = ""
        if any(c.isalpha() for c in title):
            out.append((title, int(match.group("page"))))
    return out


def _in_page_order(entries: list[tuple[str, int]]) -> bool:
    """Contents run in page order; an index (alphabetical, dot leaders too) does not."""
    steps = list(zip(entries, entries[1:], strict=False))
    return sum(1 for a, b in steps if a[1] <= b[1]) >= 0.8 * len(steps)


def _line_keys(page: str) -> set[str]:
    """The keys of a page's lines, and of each two consecutive lines (a wrapped heading)."""
    lines = [ln for ln in page.split("\n") if ln.strip()]
    keys = {title_key(ln) for ln in lines}
    keys.update(title_key(f"{a} {b}") for a, b in zip(lines, lines[1:], strict=False))
    keys.discard("")
    return keys


def title_key(line: str) -> str:
    """A line or title compared without case, spacing, punctuation or a section number."""
    flat = " ".join(line.split())
    flat = _LABEL.sub("", flat, count=1) if _LABEL.match(flat) else flat
    return re.sub(r"[\W_]+", "", flat.lower())


def _offset(entries: list[tuple[str, int]], lines: list[set[str]], first: int) -> int | None:
    """Printed page minus page index, as most entries' titles found in the body agree."""
    votes: Counter[int] = Counter()
    for title, printed in entries:
        key = title_key(title)
        if not key:
            continue
        for p in range(first, len(lines)):
            if key in lines[p]:
                votes[printed - p] += 1
    if not votes:
        return None
    return votes.most_common(1)[0][0]


def _depth(title: str) -> int:
    match = _NUMBER.match(title)
    if match is None or not any(c.isdigit() for c in match.group("number")):
        return 1
    return match.group("number").count(".") + 1
