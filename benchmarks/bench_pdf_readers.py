"""pypdf (the parser's reader) against pdfplumber (layout-aware, on pdfminer.six) on real PDFs.

Both readers' page texts go through the same cleanup (``indexer.parsers.pdf_pages``), and each
is scored on what a reader of the passages would notice: running headers left in the text (the
manual's own header strings), contents/index pages recognised, hyphenated line ends before
joining, words glued together by a missing space, and pages per second (the baseline: pypdf
in the same run). pdfplumber is not a dependency: install it (``pip install pdfplumber``) to
measure; without it the benchmark records only pypdf.
"""

from __future__ import annotations

import gzip
import re
import time
from pathlib import Path
from typing import Any

from pypdf import PdfReader

from benchmarks.corpora import CorpusUnavailable, install_packages
from indexer.parsers.pdf_pages import clean_pages

PDFS = {
    "gnuplot": ("gnuplot-doc", "/usr/share/doc/gnuplot/gnuplot.pdf"),
    "libtasn1": ("libtasn1-doc", "/usr/share/doc/libtasn1-doc/libtasn1.pdf"),
    "bzip2": ("bzip2-doc", "/usr/share/doc/bzip2/manual.pdf.gz"),
}
HEADERS = {
    "gnuplot": re.compile(r"(?m)(?:^|\s)\d{1,3} gnuplot 5\.4(?:\s|$)|gnuplot 5\.4 \d{1,3}$"),
    "libtasn1": re.compile(r"(?m)^(?:Chapter \d+: .{3,60} \d{1,3}|Appendix A: .{3,60} \d{1,3})$"),
    "bzip2": re.compile(r"(?m)^(?:How to use bzip2|Programming with libbzip2|Miscellanea)$"),
}
_HYPHEN_BREAK = re.compile(r"[A-Za-z]{2,}-\n[a-z]{2,}")
_GLUED = re.compile(r"[a-z]{4,}[A-Z][a-z]{3,}|[a-z]{25,}")


def _data(path: str) -> bytes:
    raw = Path(path).read_bytes()
    return gzip.decompress(raw) if path.endswith(".gz") else raw


def _pypdf_pages(data: bytes) -> list[str]:
    import io

    return [p.extract_text() or "" for p in PdfReader(io.BytesIO(data)).pages]


def _plumber_pages(data: bytes) -> list[str]:
    import io

    import pdfplumber

    with pdfplumber.open(io.BytesIO(data)) as pdf:
        return [p.extract_text() or "" for p in pdf.pages]


def _score(name: str, pages: list[str], seconds: float) -> dict[str, Any]:
    cleaned = clean_pages(pages)
    text = "\n\n".join(cleaned.pages)
    raw = "\n\n".join(pages)
    words = len(text.split())
    return {
        "pages_per_second": round(len(pages) / seconds, 1),
        "reference_pages": len(cleaned.reference_pages),
        "furniture_lines_removed": cleaned.furniture_lines,
        "headers_left_after_cleanup": len(HEADERS[name].findall(text)),
        "hyphen_breaks_raw": len(_HYPHEN_BREAK.findall(raw)),
        "glued_words_per_10k": round(1e4 * len(_GLUED.findall(text)) / max(words, 1), 1),
    }


def main() -> dict[str, Any]:
    """Score both readers on every PDF; ratios against pypdf."""
    try:
        install_packages({pkg for pkg, _ in PDFS.values()})
    except CorpusUnavailable as exc:
        return {"skipped": str(exc)}
    try:
        import pdfplumber  # noqa: F401

        readers = {"pypdf": _pypdf_pages, "pdfplumber": _plumber_pages}
    except ImportError:
        readers = {"pypdf": _pypdf_pages}
    out: dict[str, Any] = {"readers": sorted(readers), "pdfs": {}}
    for name, (_, path) in PDFS.items():
        data = _data(path)
        row: dict[str, Any] = {}
        for reader, extract in readers.items():
            started = time.perf_counter()
            pages = extract(data)
            row[reader] = _score(name, pages, time.perf_counter() - started)
        if "pdfplumber" in row:
            row["pdfplumber_speed_vs_pypdf"] = round(
                row["pdfplumber"]["pages_per_second"] / row["pypdf"]["pages_per_second"], 2
            )
        out["pdfs"][name] = row
    return out
