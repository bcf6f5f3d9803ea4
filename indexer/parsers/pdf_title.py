"""A PDF's title: the outline's root, the first page's largest text, or the metadata title.

In that order: an outline with a single top entry names the whole book as its author
structured it; otherwise the largest type on the first page is what the manual prints as its
title ("gnuplot 5.4", "Libtasn1"); the metadata title comes last because producers often fill
it with a file name or a generic label, or leave it empty (Texinfo, DocBook PDFs).
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pypdf import PdfReader

log = logging.getLogger(__name__)

MAX_TITLE_CHARS = 120
_SIZE_TOLERANCE = 0.5  # points: pieces of one title line set in the same size
_GENERIC = {"untitled", "title", "document", "microsoft word", "none"}


class _Entry(Protocol):
    title: str
    depth: int


def pdf_title(reader: PdfReader, outline: list[Any]) -> str | None:
    """The document's title, or None when nothing plausible is found.

    Args:
        reader: The open PDF.
        outline: Its outline entries (objects with ``title`` and ``depth``), in order.
    """
    tops = [item for item in outline if item.depth == 1]
    if len(tops) == 1 and len(outline) > 1:
        return _plausible(tops[0].title)
    return _plausible(_largest_text(reader)) or _plausible(_metadata_title(reader))


def _plausible(title: str | None) -> str | None:
    if not title:
        return None
    title = " ".join(title.split())
    letters = sum(c.isalpha() for c in title)
    low = title.lower()
    if letters < 3 or len(title) > MAX_TITLE_CHARS or low in _GENERIC:
        return None
    if low.endswith((".dvi", ".tex", ".doc", ".docx", ".pdf")) or low.startswith("microsoft word"):
        return None
    return title


def _metadata_title(reader: PdfReader) -> str | None:
    try:
        meta = reader.metadata
        return str(meta.title) if meta is not None and meta.title else None
    except Exception as exc:  # a damaged Info dictionary must not lose the document
        log.warning("unreadable PDF metadata: %s", exc)
        return None


def _largest_text(reader: PdfReader) -> str | None:
    """The text set in the largest font size on the first page with text."""
    pieces: list[tuple[float, str]] = []

    def visit(text: str, cm: list[float], tm: list[float], _font: Any, size: float) -> None:
        if text.strip() and size:
            scale = math.hypot(tm[0], tm[1]) * math.hypot(cm[0], cm[1])
            pieces.append((float(size) * (scale or 1.0), text))

    try:
        for page in reader.pages[:2]:
            page.extract_text(visitor_text=visit)
            if pieces:
                break
    except Exception as exc:  # font or content-stream damage: fall back to the metadata
        log.warning("cannot read the first page's fonts: %s", exc)
        return None
    if not pieces:
        return None
    biggest = max(size for size, _ in pieces)
    big = [i for i, (size, _) in enumerate(pieces) if size >= biggest - _SIZE_TOLERANCE]
    # Everything drawn between the first and the last piece of that size belongs to the title
    # line: a logo's smaller raised letter ("L", "A", "TEX" in LaTeX's) would otherwise drop
    # out. The runs carry their own spaces and line breaks, as in the page's text.
    return " ".join("".join(text for _, text in pieces[big[0] : big[-1] + 1]).split()) or None
