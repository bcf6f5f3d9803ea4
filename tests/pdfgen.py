"""Render a simple Markdown source into a multi-page PDF with reportlab, for parser tests.

Supported Markdown: ``#``–``####`` headings, paragraphs, ``-``/``*`` bullets, ``1.`` numbered
items, fenced code blocks and pipe tables. Headings get larger bold fonts and, unless disabled,
a bookmark outline mirroring their levels. Every page carries a running header and a
"Page N" footer.

Usage::

    python -m tests.pdfgen SRC.md OUT.pdf [--no-outline] [--json PAGES.json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, NamedTuple

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.lib.utils import simpleSplit
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    Flowable,
    Paragraph,
    Preformatted,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

_HEADING = re.compile(r"(#{1,4})\s+(.+?)\s*#*\s*$")
_BULLET = re.compile(r"\s*[-*+]\s+(.*)")
_NUMBERED = re.compile(r"\s*(\d+)[.)]\s+(.*)")
_TABLE_RULE = re.compile(r"\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?")


class PlacedHeading(NamedTuple):
    """A heading of the source and the 1-based page it landed on."""

    title: str
    depth: int
    page: int


class _Heading(Paragraph):
    def __init__(self, title: str, level: int, style: ParagraphStyle) -> None:
        super().__init__(_inline(title), style)
        self.title = title
        self.level = level


def _inline(text: str) -> str:
    """Escape text for a reportlab Paragraph, rendering **bold** and `code`."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
    return re.sub(r"`([^`]+)`", r'<font face="Courier">\1</font>', text)


def _plain(text: str) -> str:
    return re.sub(r"\*\*(.+?)\*\*|`([^`]+)`", lambda m: m.group(1) or m.group(2), text)


def _styles() -> dict[str, ParagraphStyle]:
    base = getSampleStyleSheet()
    body = ParagraphStyle("body", parent=base["Normal"], fontSize=10, leading=13, spaceAfter=6)
    styles = {"body": body, "item": ParagraphStyle("item", parent=body, leftIndent=8 * mm)}
    for level, size in zip(range(1, 5), (20, 16, 13, 11), strict=True):
        styles[f"h{level}"] = ParagraphStyle(
            f"h{level}",
            parent=body,
            fontName="Helvetica-Bold",
            fontSize=size,
            leading=size * 1.25,
            spaceBefore=size * 0.6,
            spaceAfter=size * 0.4,
            keepWithNext=1,
        )
    return styles


def _table(lines: list[str], styles: dict[str, ParagraphStyle]) -> Table:
    rows = [
        [
            Paragraph(_inline(cell.strip()), styles["body"])
            for cell in line.strip().strip("|").split("|")
        ]
        for line in lines
        if not _TABLE_RULE.fullmatch(line.strip())
    ]
    table = Table(rows, hAlign="LEFT", repeatRows=1)
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.4, colors.grey)]))
    return table


def markdown_flowables(src: str) -> list[Flowable]:
    """Turn the Markdown subset into platypus flowables (headings as ``_Heading``)."""
    styles = _styles()
    story: list[Flowable] = []
    lines = src.replace("\r\n", "\n").split("\n")
    paragraph: list[str] = []

    def end_paragraph() -> None:
        if paragraph:
            story.append(Paragraph(_inline(" ".join(paragraph)), styles["body"]))
            paragraph.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            end_paragraph()
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            story.append(Preformatted("\n".join(lines[i + 1 : j]), styles["body"]))
            i = j + 1
            continue
        if line.lstrip().startswith("|"):
            end_paragraph()
            j = i
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            story.append(_table(lines[i:j], styles))
            story.append(Spacer(1, 4 * mm))
            i = j
            continue
        heading = _HEADING.fullmatch(line)
        bullet = _BULLET.fullmatch(line)
        numbered = _NUMBERED.fullmatch(line)
        if heading:
            end_paragraph()
            level = len(heading.group(1))
            story.append(_Heading(_plain(heading.group(2)), level, styles[f"h{level}"]))
        elif bullet:
            end_paragraph()
            story.append(Paragraph(_inline(bullet.group(1)), styles["item"], bulletText="•"))
        elif numbered:
            end_paragraph()
            number, item = numbered.groups()
            story.append(Paragraph(_inline(item), styles["item"], bulletText=f"{number}."))
        elif not line.strip():
            end_paragraph()
        else:
            paragraph.append(line.strip())
        i += 1
    end_paragraph()
    return story


class _Doc(SimpleDocTemplate):
    def __init__(self, path: str, *, outline: bool, running_title: str, **kw: Any) -> None:
        super().__init__(path, pagesize=A4, pageCompression=1, invariant=1, **kw)
        self.outline = outline
        self.running_title = running_title
        self.placed: list[PlacedHeading] = []
        self._last_level = 0

    def afterFlowable(self, flowable: Flowable) -> None:  # noqa: N802 (reportlab hook)
        if not isinstance(flowable, _Heading):
            return
        # reportlab rejects an outline entry more than one level below the previous one.
        depth = min(flowable.level, self._last_level + 1)
        self._last_level = depth
        self.placed.append(PlacedHeading(flowable.title, depth, self.page))
        if self.outline:
            key = f"h{len(self.placed)}"
            self.canv.bookmarkPage(key)
            self.canv.addOutlineEntry(flowable.title, key, level=depth - 1, closed=False)


def build_pdf(
    src_text: str,
    out_path: str | Path,
    *,
    outline: bool = True,
    running_title: str = "Overstory test manual",
) -> list[PlacedHeading]:
    """Render ``src_text`` into a PDF at ``out_path``.

    Page furniture (running header, "Page N" footer) is drawn before the page's content, so in
    extracted text every page starts with it: a section ending just before a heading at the
    top of page N therefore still reaches page N.

    Args:
        src_text: The Markdown source.
        out_path: Where to write the PDF.
        outline: Whether to add a bookmark outline mirroring the headings.
        running_title: The running header text printed at the top of every page.

    Returns:
        Each heading with its outline depth (levels made contiguous) and 1-based page, in
        document order.
    """
    doc = _Doc(str(out_path), outline=outline, running_title=running_title)

    def furniture(canv: Canvas, document: _Doc) -> None:
        canv.saveState()
        canv.setFont("Helvetica", 8)
        canv.drawString(document.leftMargin, A4[1] - 12 * mm, document.running_title)
        canv.drawCentredString(A4[0] / 2, 10 * mm, f"Page {document.page}")
        canv.restoreState()

    doc.build(markdown_flowables(src_text), onFirstPage=furniture, onLaterPages=furniture)
    return doc.placed


# Words of the made two-column pages: every paragraph a different run of them, so a reader that
# interleaves columns breaks paragraphs in a way a test can see.
COLUMN_WORDS = (
    "spindle", "belt", "coolant", "pump", "relay", "fuse",
    "guard", "clamp", "chuck", "motor", "drive", "lever",
)  # fmt: skip


def column_paragraphs(n: int) -> list[str]:
    """``n`` paragraphs for :func:`build_columns_pdf`, each numbered at its start and end."""
    w = COLUMN_WORDS
    return [
        f"Paragraph {i} begins here. "
        + " ".join(w[(i * 5 + k) % len(w)] for k in range(55))
        + f" End of paragraph {i}."
        for i in range(n)
    ]


def build_columns_pdf(
    title: str,
    paragraphs: list[str],
    out_path: str | Path,
    *,
    interleave: bool = True,
    figure_after: int | None = None,
) -> None:
    """Write a two-column PDF the way line-by-line producers draw one.

    A full-width title heads the first page; the paragraphs fill the left column, then the
    right, then the next page's. With ``interleave`` each text line is drawn row by row across
    both columns (left line, right line, next row), as some word processors and converters
    write pages, so the content stream alternates between the columns; without it each column
    is drawn whole (as TeX does). ``figure_after`` puts a full-width caption across both
    columns below that many rows of the first page: the text above it is read left column
    then right column, then the caption, then the columns below it.
    """
    width, height = A4
    margin, gutter, size, leading = 20 * mm, 8 * mm, 10, 13
    column = (width - 2 * margin - gutter) / 2
    lines: list[str] = []
    for paragraph in paragraphs:
        lines.extend(simpleSplit(paragraph, "Helvetica", size, column))
        lines.append("")
    canv = Canvas(str(out_path), pagesize=A4, pageCompression=1, invariant=1)
    top = height - margin - 30
    rows = int((top - margin) / leading)
    first = True
    while lines:
        if first:
            canv.setFont("Helvetica-Bold", 18)
            canv.drawString(margin, height - margin - 10, title)
        bands = [rows]
        if first and figure_after is not None:
            bands = [figure_after, rows - figure_after - 3]
        draws: list[tuple[float, float, str]] = []
        y = top
        for band_rows in bands:
            for c in range(2):
                for r, line in enumerate(lines[:band_rows]):
                    x = margin + c * (column + gutter)
                    draws.append((x, y - r * leading, line))
                del lines[:band_rows]
            y -= (band_rows + 1) * leading
        if len(bands) > 1:
            draws.append((margin, top - (figure_after + 1) * leading, FIGURE_CAPTION))
        if interleave:
            draws.sort(key=lambda d: (-d[1], d[0]))
        canv.setFont("Helvetica", size)
        for x, y_line, line in draws:
            if line:
                canv.drawString(x, y_line, line)
        first = False
        canv.showPage()
    canv.save()


FIGURE_CAPTION = (
    "Figure 1: The spindle assembly seen from the operator side, with the drive belt cover removed."
)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: render SRC.md to OUT.pdf and print the heading pages."""
    parser = argparse.ArgumentParser(description="Render simple Markdown into a test PDF.")
    parser.add_argument("src", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--no-outline", action="store_true", help="omit the bookmark outline")
    parser.add_argument("--json", type=Path, help="also write the heading pages as JSON here")
    args = parser.parse_args(argv)
    placed = build_pdf(args.src.read_text(encoding="utf-8"), args.out, outline=not args.no_outline)
    rows = [heading._asdict() for heading in placed]
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    for heading in placed:
        print(f"p{heading.page:<4} {'  ' * (heading.depth - 1)}{heading.title}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
