"""PDF readers compared: pypdf plain, pypdf's layout mode, Overstory's reading order, pdfplumber.

Every reader's page texts go through the same cleanup (``indexer.parsers.pdf_pages``) and are
scored on what a reader of the passages would notice: running headers left in the text (the
manual's own header strings), contents/index pages recognised, hyphenated line ends before
joining, words glued together by a missing space, the outline's titles found in reading order
(a reordered page moves a heading out of place), and pages per second (the baseline: pypdf
plain in the same run). Readers:

- ``pypdf``: ``extract_text()``, content-stream order.
- ``pypdf_layout_mode``: ``extract_text(extraction_mode="layout")``, a fixed-width rendering.
- ``overstory``: ``indexer.parsers.pdf_layout.read_page`` (columns and tables from positions;
  pypdf's text where nothing needs reordering), what the parser uses.
- ``pdfplumber`` (layout-aware, on pdfminer.six): not a dependency; install it
  (``pip install pdfplumber``) to measure; without it the benchmark leaves it out.

Two documents made here add what the Debian manuals lack a gold for: a two-column page drawn
line by line across the columns (score: paragraphs read whole and in order) and a table drawn
cell by cell (score: rows read as one line with their cells in order). The Debian PDFs include
LaTeX News (two columns, TeX) and the LaTeX font-encodings guide (tables).

``contents_headings``: on PDFs that have an outline, the outline is the gold for the headings
a PDF *without* one would need; with the outline ignored, headings from numbered lines and
from the printed contents confirmed on their pages (``indexer.parsers.pdf_contents``) are
scored by precision and recall against it.
"""

from __future__ import annotations

import gzip
import io
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pypdf import PdfReader

from benchmarks.corpora import CorpusUnavailable, install_packages
from indexer.parsers import pdf as pdf_parser
from indexer.parsers.numbering import find_numbered_headings
from indexer.parsers.pdf_contents import contents_entries, title_key
from indexer.parsers.pdf_layout import FontCache, read_page
from indexer.parsers.pdf_pages import clean_pages
from tests.pdfgen import COLUMN_WORDS, build_columns_pdf, build_pdf, column_paragraphs

_TEXLIVE = "/usr/share/doc/texlive-doc/latex/base"
PDFS = {
    "gnuplot": ("gnuplot-doc", "/usr/share/doc/gnuplot/gnuplot.pdf"),
    "libtasn1": ("libtasn1-doc", "/usr/share/doc/libtasn1-doc/libtasn1.pdf"),
    "bzip2": ("bzip2-doc", "/usr/share/doc/bzip2/manual.pdf.gz"),
    "ltnews": ("texlive-latex-base-doc", f"{_TEXLIVE}/ltnews.pdf"),
    "encguide": ("texlive-latex-base-doc", f"{_TEXLIVE}/encguide.pdf"),
}
HEADERS = {
    "gnuplot": re.compile(r"(?m)(?:^|\s)\d{1,3} gnuplot 5\.4(?:\s|$)|gnuplot 5\.4 \d{1,3}$"),
    "libtasn1": re.compile(r"(?m)^(?:Chapter \d+: .{3,60} \d{1,3}|Appendix A: .{3,60} \d{1,3})$"),
    "bzip2": re.compile(r"(?m)^(?:How to use bzip2|Programming with libbzip2|Miscellanea)$"),
    "ltnews": re.compile(r"(?m)^–\d{1,3}$"),
    "encguide": re.compile(r"(?m)^\d{1,2}$"),
}
# PDFs with an outline: the gold for headings found without one.
HEADING_GOLD = ("gnuplot", "libtasn1", "encguide", "ltnews")
_HYPHEN_BREAK = re.compile(r"[A-Za-z]{2,}-\n[a-z]{2,}")
_GLUED = re.compile(r"[a-z]{4,}[A-Z][a-z]{3,}|[a-z]{25,}")


def _data(path: str) -> bytes:
    raw = Path(path).read_bytes()
    return gzip.decompress(raw) if path.endswith(".gz") else raw


def _pypdf_pages(data: bytes) -> list[str]:
    return [p.extract_text() or "" for p in PdfReader(io.BytesIO(data)).pages]


def _layout_mode_pages(data: bytes) -> list[str]:
    return [
        p.extract_text(extraction_mode="layout") or "" for p in PdfReader(io.BytesIO(data)).pages
    ]


def _overstory_pages(data: bytes) -> list[str]:
    fonts: FontCache = {}
    return [read_page(p, fonts) for p in PdfReader(io.BytesIO(data)).pages]


def _plumber_pages(data: bytes) -> list[str]:
    import pdfplumber

    with pdfplumber.open(io.BytesIO(data)) as pdf:
        return [p.extract_text() or "" for p in pdf.pages]


def _readers() -> dict[str, Callable[[bytes], list[str]]]:
    readers = {
        "pypdf": _pypdf_pages,
        "pypdf_layout_mode": _layout_mode_pages,
        "overstory": _overstory_pages,
    }
    try:
        import pdfplumber  # noqa: F401

        readers["pdfplumber"] = _plumber_pages
    except ImportError:
        pass
    return readers


def _flat(text: str) -> str:
    return " ".join(text.split()).lower()


def _in_order(text: str, pieces: list[str]) -> float:
    """Share of the pieces found whole, each after the previous one found."""
    flat, pos, found = _flat(text), 0, 0
    for piece in pieces:
        at = flat.find(_flat(piece), pos)
        if at >= 0:
            found, pos = found + 1, at + 1
    return round(found / max(len(pieces), 1), 3)


def _score(
    pages: list[str], seconds: float, header: re.Pattern[str], titles: list[str]
) -> dict[str, Any]:
    cleaned = clean_pages(pages)
    text = "\n\n".join(cleaned.pages)
    raw = "\n\n".join(pages)
    words = len(text.split())
    return {
        "pages_per_second": round(len(pages) / seconds, 1),
        "reference_pages": len(cleaned.reference_pages),
        "furniture_lines_removed": cleaned.furniture_lines,
        "headers_left_after_cleanup": len(header.findall(text)),
        "hyphen_breaks_raw": len(_HYPHEN_BREAK.findall(raw)),
        "glued_words_per_10k": round(1e4 * len(_GLUED.findall(text)) / max(words, 1), 1),
        "outline_titles_in_order": _in_order(text, titles) if titles else None,
    }


def _synthetic(folder: Path) -> dict[str, tuple[bytes, Callable[[str], float]]]:
    """The made documents and each one's score of a reader's text (1.0: all read right)."""
    paragraphs = column_paragraphs(24)
    build_columns_pdf("Spindle notes", paragraphs, folder / "columns.pdf", interleave=True)
    w = COLUMN_WORDS
    rows = [
        [f"part {i}", f"{100 + 7 * i} mm", f"Replace the {w[i % len(w)]} when worn past {i} mm"]
        for i in range(30)
    ]
    table = "# Parts\n\n| Part | Size | Note |\n| --- | --- | --- |\n"
    table += "".join(f"| {' | '.join(r)} |\n" for r in rows)
    build_pdf(table, folder / "table.pdf")

    def rows_whole(text: str) -> float:
        lines = [" ".join(re.split(r"\s*\|\s*|\s{2,}", ln.strip())) for ln in text.split("\n")]
        flat = {_flat(ln) for ln in lines}
        return round(sum(1 for r in rows if _flat(" ".join(r)) in flat) / len(rows), 3)

    return {
        "two_column_interleaved": (
            (folder / "columns.pdf").read_bytes(),
            lambda text: _in_order(text, paragraphs),
        ),
        "table_cell_by_cell": ((folder / "table.pdf").read_bytes(), rows_whole),
    }


def _heading_scores(data: bytes) -> dict[str, Any]:
    """Headings found with the outline ignored, against the outline's titles."""
    reader = PdfReader(io.BytesIO(data))
    # Compared as the parser matches titles: without case, spacing or section numbers.
    gold = {title_key(item.title) for item in pdf_parser._outline(reader)}
    raw = [read_page(p) for p in reader.pages]
    cleaned = clean_pages(raw)
    text = "\n\n".join(cleaned.pages)
    found = {
        "numbered_lines": [
            h.title for h in find_numbered_headings(text, require_blank_before=False)
        ],
        "printed_contents": [
            e.title for e in contents_entries(raw, cleaned.pages, cleaned.reference_pages)
        ],
    }
    out: dict[str, Any] = {"outline_entries": len(gold)}
    for method, titles in found.items():
        hits = len({title_key(t) for t in titles} & gold)
        out[method] = {
            "found": len(titles),
            "precision": round(hits / len(titles), 3) if titles else None,
            "recall": round(hits / len(gold), 3) if gold else None,
        }
    return out


def main() -> dict[str, Any]:
    """Score every reader on every PDF; speeds as ratios against pypdf plain."""
    try:
        install_packages({pkg for pkg, _ in PDFS.values()})
    except CorpusUnavailable as exc:
        return {"skipped": str(exc)}
    readers = _readers()
    out: dict[str, Any] = {
        "readers": sorted(readers),
        "pdfs": {},
        "made": {},
        "contents_headings": {},
    }
    for name, (_, path) in PDFS.items():
        data = _data(path)
        titles = [item.title for item in pdf_parser._outline(PdfReader(io.BytesIO(data)))]
        row: dict[str, Any] = {}
        _pypdf_pages(data)  # warm-up: the first reader should not pay for cold caches
        for reader, extract in readers.items():
            started = time.perf_counter()
            pages = extract(data)
            row[reader] = _score(pages, time.perf_counter() - started, HEADERS[name], titles)
        for reader in readers:
            if reader != "pypdf":
                row[f"{reader}_speed_vs_pypdf"] = round(
                    row[reader]["pages_per_second"] / row["pypdf"]["pages_per_second"], 2
                )
        out["pdfs"][name] = row
        if name in HEADING_GOLD:
            out["contents_headings"][name] = _heading_scores(data)
    with tempfile.TemporaryDirectory() as folder:
        for name, (data, score) in _synthetic(Path(folder)).items():
            out["made"][name] = {
                reader: score("\n".join(extract(data))) for reader, extract in readers.items()
            }
    return out
