"""Clean extracted PDF pages before they are joined: page furniture, contents pages, hyphens.

Real manuals carry text that is about the printed book rather than its subject: running headers
and footers ("126 gnuplot 5.4", "Chapter 2: ASN.1 structure handling 4"), tables of contents,
lists of figures and back-of-book indexes (title, dot leaders, page number). Left in, a header
lands mid-sentence wherever a passage crosses a page, and a contents page holds every heading's
words and competes with the real text in every query. Words hyphenated across a line end would
be unsearchable halves.

The rules read the document's own regularities, not any one manual's strings:

- **Furniture** is the first or last line of a page whose shape (digits masked) recurs at a page
  edge on at least a tenth of the pages (and on three), or the second/second-last line whose shape
  recurs on half of them; or an edge line that carries the printed page number — an integer
  equal to the page's index plus the offset most pages agree on — in a line short enough to be
  a header.
- **Reference pages** (contents, lists of figures, indexes) are pages most of whose lines are
  entries: a title followed by dot leaders and a page number, or by a page-number column whose
  numbers run in order (contents) or by comma-separated page lists (indexes). Their text is
  dropped (the page stays, empty, so page numbers keep counting); elsewhere a run of three or
  more dot-leader entries is dropped too (a chapter's own mini contents).
- **Hyphenation**: ``manip-`` at a line end followed by ``ulation`` is joined to
  ``manipulation``, unless the document writes the hyphenated word elsewhere on one line
  (``command-line``), in which case the hyphen is kept and only the line break goes.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

_DIGITS = re.compile(r"\d+")
_INT = re.compile(r"(?<![\w.])\d{1,4}(?![\w.])")
_MAX_HEADER_LEN = 90
_DOT_LEADER = re.compile(r"(?:\.\s*){3,}\s*[\divxlcdm]+\s*$", re.I)
_NUMBER_TAIL = re.compile(r"\S.*?\s(\d{1,4})$")
_PAGE_REF = r"\d{1,4}(?:\s*[-–]\s*\d{1,4})?"
_INDEX_ENTRY = re.compile(rf"\S.*?,\s*{_PAGE_REF}(?:,\s*{_PAGE_REF})*")
_MIN_ENTRY_LINES = 5
REFERENCE_TITLE = re.compile(
    r"(?:table of )?contents|(?:list of )?(?:figures|tables|examples)|\w*\s*index", re.I
)
_HYPHENATED = re.compile(r"([A-Za-z]{2,})-\n([a-z]{2,})")
_WORD_HYPHEN = re.compile(r"\b[A-Za-z]+-[a-z]+\b")


@dataclass(frozen=True)
class CleanPages:
    """The cleaned pages and what was taken out of them.

    Attributes:
        pages: One text per page (a reference page's text is empty).
        reference_pages: 0-based indexes of the contents/figures/index pages dropped.
        furniture_lines: How many header/footer lines were removed.
    """

    pages: list[str]
    reference_pages: list[int]
    furniture_lines: int


def clean_pages(pages: list[str]) -> CleanPages:
    """Remove furniture and reference pages from extracted page texts and join hyphenations."""
    lines = [page.split("\n") for page in pages]
    furniture = _furniture(lines)
    kept: list[list[str]] = []
    removed = 0
    for p, page_lines in enumerate(lines):
        drop = furniture.get(p, set())
        removed += len(drop)
        kept.append([ln for i, ln in enumerate(page_lines) if i not in drop])
    reference = _reference_pages(kept)
    texts = [
        "\n".join(_without_entries(page_lines, whole=p in reference)).strip("\n")
        for p, page_lines in enumerate(kept)
    ]
    return CleanPages(
        pages=_join_hyphens(texts), reference_pages=reference, furniture_lines=removed
    )


def _edges(page_lines: list[str]) -> list[int]:
    """Indexes of the non-empty lines: first, second, second-last, last (deduplicated)."""
    filled = [i for i, ln in enumerate(page_lines) if ln.strip()]
    return filled[:2] + filled[2:][-2:]


def _shape(line: str) -> str:
    return _DIGITS.sub("#", " ".join(line.split()))


def _furniture(lines: list[list[str]]) -> dict[int, set[int]]:
    """Per page, the line indexes that are running headers or footers."""
    outer: Counter[str] = Counter()
    inner: Counter[str] = Counter()
    for page_lines in lines:
        edges = _edges(page_lines)
        for rank, i in enumerate(edges):
            is_outer = rank == 0 or i == edges[-1]
            (outer if is_outer else inner)[_shape(page_lines[i])] += 1
    n = len(lines)
    outer_min, inner_min = max(3, n // 10), max(3, n // 2)
    offset = _page_number_offset(lines)
    out: dict[int, set[int]] = {}
    for p, page_lines in enumerate(lines):
        edges = _edges(page_lines)
        for rank, i in enumerate(edges):
            line = page_lines[i]
            shape = _shape(line)
            is_outer = rank == 0 or i == edges[-1]
            recurring = (outer[shape] + inner[shape]) >= (outer_min if is_outer else inner_min)
            numbered = is_outer and offset is not None and _carries_number(line, p + offset)
            if (recurring and any(c.isalnum() for c in shape)) or numbered:
                out.setdefault(p, set()).add(i)
    return out


def _carries_number(line: str, number: int) -> bool:
    if len(line.strip()) > _MAX_HEADER_LEN:
        return False
    return any(int(m.group()) == number for m in _INT.finditer(line))


def _page_number_offset(lines: list[list[str]]) -> int | None:
    """The offset between printed page numbers and page indexes that most pages agree on.

    Counted over the integers of each page's first and last lines; None unless it holds on at
    least a third of the pages (and three), so a manual without printed numbers gets none.
    """
    votes: Counter[int] = Counter()
    for p, page_lines in enumerate(lines):
        edges = _edges(page_lines)
        seen: set[int] = set()
        for i in (edges[0], edges[-1]) if edges else ():
            if len(page_lines[i].strip()) <= _MAX_HEADER_LEN:
                seen.update(int(m.group()) - p for m in _INT.finditer(page_lines[i]))
        votes.update(seen)
    if not votes:
        return None
    offset, count = votes.most_common(1)[0]
    return offset if count >= max(3, len(lines) // 3) else None


def _reference_pages(pages: list[list[str]]) -> list[int]:
    """Reference pages, plus the short end of a run: a neighbour made only of entries."""
    found = {p for p, page_lines in enumerate(pages) if is_reference_page(page_lines)}
    for p, page_lines in enumerate(pages):
        filled = [ln for ln in page_lines if ln.strip()]
        if (
            p not in found
            and {p - 1, p + 1} & found
            and len(filled) >= 2
            and all(_is_entry(ln) for ln in filled)
        ):
            found.add(p)
    return sorted(found)


def is_reference_page(page_lines: list[str]) -> bool:
    """Whether a page is a table of contents, a list of figures or an index.

    Most of its non-empty lines must be entries, and the entries must look like a reference
    list: dot leaders, page numbers in order, or comma-separated page lists.
    """
    filled = [" ".join(ln.split()) for ln in page_lines if ln.strip()]
    if len(filled) < _MIN_ENTRY_LINES:
        return False
    leaders = sum(1 for ln in filled if _DOT_LEADER.search(ln))
    indexed = sum(1 for ln in filled if _INDEX_ENTRY.fullmatch(ln))
    tails = [int(m.group(1)) for ln in filled if (m := _NUMBER_TAIL.fullmatch(ln))]
    entries = sum(1 for ln in filled if _is_entry(ln))
    if entries < max(_MIN_ENTRY_LINES, 0.5 * len(filled)):
        return False
    if leaders >= 0.2 * len(filled) or indexed >= 0.5 * len(filled):
        return True
    in_order = sum(1 for a, b in zip(tails, tails[1:], strict=False) if a <= b)
    return len(tails) >= _MIN_ENTRY_LINES and in_order >= 0.8 * (len(tails) - 1)


def _is_entry(line: str) -> bool:
    flat = " ".join(line.split())
    return bool(
        flat
        and (
            _DOT_LEADER.search(flat) or _INDEX_ENTRY.fullmatch(flat) or _NUMBER_TAIL.fullmatch(flat)
        )
    )


def _without_entries(page_lines: list[str], *, whole: bool) -> list[str]:
    """The lines without reference entries.

    On a reference page everything from the first entry to the last goes (wrapped entries and
    letter headings included); elsewhere only runs of three or more dot-leader entries (a
    chapter's mini contents). A "Contents"/"Index"-like title just before a dropped block goes
    with it; a chapter heading above a chapter's contents stays.
    """
    blocks: list[tuple[int, int]] = []
    if whole:
        entries = [i for i, ln in enumerate(page_lines) if _is_entry(ln)]
        if entries:
            blocks.append((entries[0], entries[-1] + 1))
    else:
        start = None
        for i, line in enumerate([*page_lines, ""]):
            if line.strip() and _DOT_LEADER.search(line):
                start = i if start is None else start
                continue
            if start is not None and i - start >= 3:
                blocks.append((start, i))
            start = None
    drop: set[int] = set()
    for first, end in blocks:
        drop.update(range(first, end))
        before = first - 1
        while before >= 0 and not page_lines[before].strip():
            before -= 1
        if before >= 0 and REFERENCE_TITLE.fullmatch(page_lines[before].strip()):
            drop.add(before)
    return [ln for i, ln in enumerate(page_lines) if i not in drop]


def _join_hyphens(texts: list[str]) -> list[str]:
    hyphenated = {m.group().lower() for t in texts for m in _WORD_HYPHEN.finditer(t)}

    def join(m: re.Match[str]) -> str:
        word = f"{m.group(1)}-{m.group(2)}"
        return word if word.lower() in hyphenated else m.group(1) + m.group(2)

    return [_HYPHENATED.sub(join, t) for t in texts]
