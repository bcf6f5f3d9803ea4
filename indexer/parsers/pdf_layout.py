"""Reading order from positions: PDF pages in columns and tables read as a person reads them.

pypdf's plain extraction follows the content stream. That is the reading order for most
manuals, but not for producers that draw a two-column page line by line across both columns
(the columns interleave: "left line right line") or a table cell by cell (each cell on lines of
its own, a row scattered over many lines). The plain text is the concatenation of the text runs
pypdf reports to a visitor with their positions, so the page can be re-read from those runs and
the plain text kept wherever nothing needs reordering: a single-column page without tables
comes out exactly as pypdf reads it.

- **Columns**: a gutter is a vertical band, in the middle of the page's text, that almost no
  line crosses while lines on both sides of it span most of the text's height, and the lines
  left of it fill their column (a table's short first column does not). Each stream line is cut
  at the gutters; lines crossing one (titles, full-width figures) stay whole and in their
  place; between them each column is read top to bottom, left column first.
- **Tables**: a row whose cells come as separate lines (the stream moves down within a cell,
  then up and to the right into the next cell) or as runs on one line separated by a wide gap
  is written as one line, cells joined by `` | ``, so a passage never splits a row.
"""

from __future__ import annotations

import logging
import math
import re
import statistics
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pypdf.errors import PyPdfError
from pypdf.generic import DictionaryObject

from indexer.parsers.pdf_fonts import FontWidths, font_widths

if TYPE_CHECKING:
    from pypdf import PageObject

log = logging.getLogger(__name__)

FontCache = dict[Any, FontWidths | None]  # a document's measured fonts by object reference

CELL_SEPARATOR = " | "
_BIN = 2.0  # points: the resolution of the gutter search
_MIN_GUTTER = 6.0  # points: narrower bands are word spaces
_MIN_LINES = 8  # fewer text lines than this: no column analysis
_FILL = 0.6  # a column's lines are at least this share of its width (median)
_CROSSING = 0.15  # share of rows that may cross a gutter (full-width titles, figures)
_SPAN = 0.5  # share of the text height each side of a gutter must cover
_GAP = 1.5  # font sizes: a gap between runs on one line this wide separates cells
_LIST_MARKER = re.compile(r"[•◦▪‣\-–*]|\(?[0-9]{1,3}[.)]|\(?[a-z][.)]|[ivx]{1,4}\.")


@dataclass
class _Run:
    """One text run: its text (without line breaks), origin and font size."""

    text: str
    x: float
    y: float
    size: float
    width: float | None = None  # from the font's glyph widths, when known
    end: float = 0.0  # right edge (estimated when the width is unknown)


@dataclass
class _Line:
    """A stream line (or a column's part of one): its runs in stream order."""

    runs: list[_Run] = field(default_factory=list)
    column: int = -1  # -1: crosses a gutter, or no columns

    @property
    def filled(self) -> list[_Run]:
        return [r for r in self.runs if r.text.strip()]

    @property
    def x(self) -> float:
        return self.filled[0].x

    @property
    def y(self) -> float:
        return self.filled[0].y

    @property
    def size(self) -> float:
        return self.filled[0].size or 10.0

    def text(self) -> str:
        return "".join(r.text for r in self.runs).strip()


def read_page(page: PageObject, fonts: FontCache | None = None) -> str:
    """The page's text in reading order (pypdf's plain text when nothing needs reordering).

    Args:
        page: The page.
        fonts: Measured fonts by their object reference, shared by a document's pages so each
            font is read once (a new cache per call otherwise).
    """
    runs: list[_Run] = []
    fonts = {} if fonts is None else fonts

    def visit(text: str, cm: list[float], tm: list[float], font: Any, size: float) -> None:
        if text:
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
            scale = math.hypot(tm[0], tm[1]) * math.hypot(cm[0], cm[1]) or 1.0
            points = float(size or 0) * scale
            runs.append(_Run(text, x, y, points, _text_width(fonts, font, text, points)))

    plain = page.extract_text(visitor_text=visit) or ""
    if "".join(r.text for r in runs) != plain:
        return plain  # the runs do not spell the text: nothing to reorder safely
    try:
        ordered = order_runs(runs)
    except Exception as exc:  # odd geometry must never lose the page's text
        log.warning("layout analysis failed, keeping stream order: %s", exc)
        return plain
    return plain if ordered is None else ordered


def _text_width(fonts: FontCache, font: Any, text: str, size: float) -> float | None:
    """The text's advance in points from the font's widths, or None when unknown."""
    if not isinstance(font, DictionaryObject):
        return None
    ref = font.indirect_reference
    # A font written inline has no reference: keyed by its object, which the reader keeps.
    key = (ref.idnum, ref.generation) if ref is not None else ("inline", id(font))
    if key not in fonts:
        try:
            fonts[key] = font_widths(font)
        except (ValueError, TypeError, PyPdfError):  # unreadable widths: estimated instead
            fonts[key] = None
    measured = fonts[key]
    if measured is None:
        return None
    return measured.text_width(text.rstrip("\n").rstrip(), size)


def order_runs(runs: list[_Run]) -> str | None:
    """The runs' text in reading order, or None when stream order already is."""
    lines = _stream_lines(runs)
    filled = [ln for ln in lines if ln.filled]
    if not filled:
        return None
    _estimate_ends(filled)
    gutters = _gutters(filled)
    ordered = _by_columns(filled, gutters) if gutters else None
    rows = _tables(ordered or filled)
    if ordered is None and not any(isinstance(row, list) for row in rows):
        return None
    out = [CELL_SEPARATOR.join(cells) if isinstance(cells, list) else cells for cells in rows]
    return "\n".join(out)


def _stream_lines(runs: list[_Run]) -> list[_Line]:
    lines = [_Line()]
    for run in runs:
        parts = run.text.split("\n")
        for i, part in enumerate(parts):
            if i:
                lines.append(_Line())
            if part:
                width = run.width if sum(1 for q in parts if q) == 1 else None
                lines[-1].runs.append(_Run(part, run.x, run.y, run.size, width))
    return lines


def _estimate_ends(lines: list[_Line]) -> None:
    """Each run's right edge: its width from the page's own glyph advance, capped by a neighbour.

    The advance per character and point of font size is the median over runs followed on their
    line by another run; a run's end never passes the start of the next run on its row.
    """
    samples = [
        (b.x - a.x) / (len(a.text) * a.size)
        for ln in lines
        for a, b in zip(ln.filled, ln.filled[1:], strict=False)
        if a.size and abs(a.y - b.y) < 0.2 * a.size and b.x > a.x
    ]
    advance = min(max(statistics.median(samples), 0.3), 0.7) if samples else 0.5
    rows: dict[int, list[_Run]] = {}
    for ln in lines:
        for r in ln.filled:
            guess = len(r.text.rstrip()) * r.size * advance
            r.end = r.x + (r.width if r.width else guess)
            rows.setdefault(round(r.y / _BIN), []).append(r)
    for row in rows.values():
        row.sort(key=lambda r: r.x)
        for a, b in zip(row, row[1:], strict=False):
            if b.x > a.x:
                a.end = min(a.end, b.x - 1.0)


def _gutters(lines: list[_Line]) -> list[tuple[float, float]]:
    """The column gutters of the page as (left, right) x-bands, left to right."""
    runs = [r for ln in lines for r in ln.filled]
    rows = {round(r.y / _BIN) for r in runs}
    if len(rows) < _MIN_LINES:
        return []
    x0, x1 = min(r.x for r in runs), max(r.end for r in runs)
    y0, y1 = min(r.y for r in runs), max(r.y for r in runs)
    width, height = x1 - x0, y1 - y0
    if width <= 0 or height <= 0:
        return []
    # A column right of a gutter starts lines away from the left edge; most pages have none.
    if sum(1 for ln in lines if ln.x >= x0 + 0.2 * width) < 0.25 * len(lines):
        return []
    open_bins: list[float] = []
    b = x0 + 0.2 * width
    while b < x0 + 0.8 * width:
        crossing = {round(r.y / _BIN) for r in runs if r.x < b - 1 and r.end > b + 1}
        left = [r.y for r in runs if r.end <= b]
        right = [r.y for r in runs if r.x >= b]
        if (
            len(crossing) <= _CROSSING * len(rows)
            and left
            and right
            and max(left) - min(left) >= _SPAN * height
            and max(right) - min(right) >= _SPAN * height
        ):
            open_bins.append(b)
        b += _BIN
    bands = _bands(open_bins)
    return [band for band in bands if _fills_column(runs, x0, band)]


def _bands(bins: list[float]) -> list[tuple[float, float]]:
    bands: list[tuple[float, float]] = []
    for b in bins:
        if bands and b - bands[-1][1] <= _BIN + 0.01:
            bands[-1] = (bands[-1][0], b)
        else:
            bands.append((b, b))
    return [(lo, hi) for lo, hi in bands if hi - lo + _BIN >= _MIN_GUTTER]


def _fills_column(runs: list[_Run], x0: float, band: tuple[float, float]) -> bool:
    """Whether the lines just left of the band fill their column, as text columns do."""
    rows: dict[int, tuple[float, float]] = {}
    for r in runs:
        if r.end <= band[0] + 1:
            key = round(r.y / _BIN)
            lo, hi = rows.get(key, (r.x, r.end))
            rows[key] = (min(lo, r.x), max(hi, r.end))
    starts = [lo for lo, _ in rows.values()]
    if not starts:
        return False
    left = min(starts) if min(starts) > x0 else x0
    widths = [hi - lo for lo, hi in rows.values() if lo < band[0]]
    return statistics.median(widths) >= _FILL * (band[0] - left)


def _by_columns(lines: list[_Line], gutters: list[tuple[float, float]]) -> list[_Line] | None:
    """Lines cut at the gutters and read column by column between full-width lines.

    None when the stream already reads the columns one after another (as TeX writes them):
    it goes back to a left column no more often than a full-width line starts a new band, and
    its order is then kept as it is.
    """
    edges = [(lo + hi) / 2 for lo, hi in gutters]
    parts: list[_Line] = []
    for ln in lines:
        if any(r.x < e - 1 and r.end > e + 1 for r in ln.filled for e in edges):
            parts.append(_Line(ln.runs, -1))
            continue
        by_column: dict[int, _Line] = {}
        for r in ln.runs:
            column = sum(1 for e in edges if r.x >= e)
            by_column.setdefault(column, _Line(column=column)).runs.append(r)
        parts.extend(part for part in by_column.values() if part.filled)
    spanning = sorted((p for p in parts if p.column < 0), key=lambda p: -p.y)
    columns = [p.column for p in parts if p.column >= 0]
    back = sum(1 for a, b in zip(columns, columns[1:], strict=False) if b < a)
    if back <= len(spanning) + 1:
        return None
    out: list[_Line] = []
    for k in range(len(spanning) + 1):
        top = spanning[k - 1].y if k else math.inf
        bottom = spanning[k].y if k < len(spanning) else -math.inf
        if k:
            out.append(spanning[k - 1])
        band = [p for p in parts if p.column >= 0 and bottom < p.y <= top]
        out.extend(sorted(band, key=lambda p: p.column))  # stable: stream order per column
    return out


def _tables(lines: list[_Line]) -> list[str | list[str]]:
    """Each line's text, with table rows as lists of cells (one entry per row)."""
    out: list[str | list[str]] = []
    i = 0
    while i < len(lines):
        rows, end = _cell_rows(lines, i)
        if len(rows) < 2:
            rows, end = _gap_rows(lines, i)
        if len(rows) >= 2 and not all(_is_marker(r[0]) for r in rows):
            out.extend(rows)
            i = end
            continue
        out.append(lines[i].text())
        i += 1
    return out


def _is_marker(cell: str) -> bool:
    """A list item's bullet or number: the rows are a list, not a table."""
    return not any(c.isalnum() for c in cell) or bool(_LIST_MARKER.fullmatch(cell))


def _cells(lines: list[_Line], i: int) -> tuple[list[list[_Line]], int]:
    """One table row from line i, its cells drawn one after another (up and right between)."""
    cells = [[lines[i]]]
    top, bottom = lines[i].y, lines[i].y
    j = i + 1
    while j < len(lines):
        prev, ln = cells[-1][-1], lines[j]
        if abs(ln.x - prev.x) <= 1 and 0 < prev.y - ln.y <= 1.6 * prev.size:
            cells[-1].append(ln)  # the cell's next line
        elif (
            ln.x > cells[-1][0].x + prev.size
            and ln.y >= prev.y - 0.5 * prev.size
            and bottom - prev.size <= ln.y <= top + 6 * prev.size
        ):
            cells.append([ln])  # the next cell of the row
        else:
            break
        top, bottom = max(top, ln.y), min(bottom, ln.y)
        j += 1
    return cells, j


def _cell_rows(lines: list[_Line], i: int) -> tuple[list[list[str]], int]:
    """Consecutive rows of two or more cells starting at line i, with the index after them."""
    rows: list[list[str]] = []
    columns: list[float] | None = None
    while i < len(lines):
        cells, end = _cells(lines, i)
        starts = [cell[0].x for cell in cells]
        if len(cells) < 2 or (columns is not None and not _aligned(starts, columns)):
            break
        columns = columns or starts
        rows.append([" ".join(ln.text() for ln in cell) for cell in cells])
        i = end
    return rows, i


def _gap_rows(lines: list[_Line], i: int) -> tuple[list[list[str]], int]:
    """Consecutive lines split into cells at wide gaps, at the same positions on each line."""
    rows: list[list[str]] = []
    columns: list[float] | None = None
    while i < len(lines):
        cells = _split_at_gaps(lines[i])
        starts = [start for start, _ in cells]
        if len(cells) < 2 or (columns is not None and not _aligned(starts, columns)):
            break
        columns = columns or starts
        rows.append([text for _, text in cells])
        i += 1
    return rows, i


def _split_at_gaps(line: _Line) -> list[tuple[float, str]]:
    cells: list[tuple[float, list[_Run]]] = []
    prev: _Run | None = None
    for r in line.runs:
        if not r.text.strip():
            if cells:
                cells[-1][1].append(r)
            continue
        if prev is None or r.x - prev.end >= _GAP * r.size or abs(r.y - prev.y) > 0.5 * r.size:
            cells.append((r.x, []))
        cells[-1][1].append(r)
        prev = r
    return [(x, "".join(r.text for r in runs).strip()) for x, runs in cells]


def _aligned(starts: list[float], columns: list[float]) -> bool:
    """Whether the cells start in the table's columns (each start near one of them)."""
    return sum(1 for s in starts if any(abs(s - c) <= 2.0 for c in columns)) >= 2
