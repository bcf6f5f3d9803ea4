"""PDF reading order from positions: two-column pages and tables (indexer.parsers.pdf_layout)."""

from __future__ import annotations

import io
from pathlib import Path

from pypdf import PdfReader

from indexer.parsers import parse_bytes
from indexer.parsers.pdf_layout import read_page
from indexer.tree import build_tree
from tests.pdfgen import FIGURE_CAPTION, build_columns_pdf, build_pdf, column_paragraphs


def _paragraphs(n: int = 10) -> list[str]:
    return column_paragraphs(n)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _in_order(text: str, pieces: list[str]) -> bool:
    flat, pos = _flat(text), 0
    for piece in pieces:
        pos = flat.find(_flat(piece), pos)
        if pos < 0:
            return False
    return True


def test_interleaved_columns_are_read_column_by_column(tmp_path: Path) -> None:
    path = tmp_path / "cols.pdf"
    paragraphs = _paragraphs()
    build_columns_pdf("Spindle notes", paragraphs, path, interleave=True)
    plain = "\n".join(p.extract_text() for p in PdfReader(path).pages)
    # The stream alternates between the columns: pypdf's plain text splits every paragraph.
    assert not _in_order(plain, paragraphs)
    doc = parse_bytes(path.read_bytes(), filename="cols.pdf")
    assert _in_order(doc.text, ["Spindle notes", *paragraphs])
    assert "|" not in doc.text  # columns are not table cells


def test_a_full_width_caption_stays_between_the_bands_it_separates(tmp_path: Path) -> None:
    path = tmp_path / "fig.pdf"
    paragraphs = _paragraphs(12)
    build_columns_pdf("Spindle notes", paragraphs, path, interleave=True, figure_after=16)
    text = parse_bytes(path.read_bytes(), filename="fig.pdf").text
    flat = _flat(text)
    caption = flat.index(FIGURE_CAPTION)
    # 16 rows of each column above the caption hold paragraphs 0-2 and part of 3; the text
    # resumes below it in the left column, so the caption sits inside paragraph 3.
    assert flat.index("End of paragraph 2.") < caption < flat.index("End of paragraph 3.")
    assert _in_order(flat.replace(FIGURE_CAPTION, ""), paragraphs)


def test_columns_drawn_one_after_another_keep_the_stream_text(tmp_path: Path) -> None:
    path = tmp_path / "tex.pdf"
    build_columns_pdf("Spindle notes", _paragraphs(), path, interleave=False)
    for page in PdfReader(path).pages:
        assert read_page(page) == page.extract_text()


def test_single_column_pages_are_exactly_pypdfs_text(tmp_path: Path) -> None:
    src = "\n\n".join(
        f"# {i} Chapter {i}\n\n" + "\n\n".join(_paragraphs(3)) + "\n\n- a list item\n- another"
        for i in range(1, 4)
    )
    path = tmp_path / "one.pdf"
    build_pdf(src, path)
    for page in PdfReader(path).pages:
        assert read_page(page) == page.extract_text()


TABLE = """# Settings

The table lists the settings.

| Option | Default | Meaning |
| --- | --- | --- |
| spindle speed | 1200 rpm | The speed the spindle turns at when idle and nothing else is set |
| feed rate | 300 mm/min | How fast the table moves |
| coolant | on | Whether coolant flows |

Text after the table.
"""

ROWS = [
    "Option | Default | Meaning",
    "spindle speed | 1200 rpm | The speed the spindle turns at when idle and nothing else is set",
    "feed rate | 300 mm/min | How fast the table moves",
    "coolant | on | Whether coolant flows",
]


def test_table_rows_are_one_line_each_with_cells_separated(tmp_path: Path) -> None:
    path = tmp_path / "table.pdf"
    build_pdf(TABLE, path)
    plain = PdfReader(path).pages[0].extract_text()
    assert "feed rate | 300 mm/min" not in plain  # pypdf gives each cell a line of its own
    doc = parse_bytes(path.read_bytes(), filename="table.pdf")
    lines = [_flat(line) for line in doc.text.split("\n")]
    for row in ROWS:
        assert row in lines
    assert _in_order(doc.text, ["The table lists the settings.", *ROWS, "Text after the table."])


def test_a_passage_never_splits_a_table_row(tmp_path: Path) -> None:
    path = tmp_path / "table.pdf"
    build_pdf(TABLE.replace("| coolant |", "| pump | off | Drains\n| coolant |"), path)
    doc = parse_bytes(path.read_bytes(), filename="table.pdf")
    tree = build_tree(doc, chunk_tokens=24, overlap=0)
    passages = [_flat(p.text or "") for p in tree.passages()]
    for row in ROWS[2:]:
        assert any(row in passage for passage in passages), row


def test_reading_survives_a_page_without_text_runs() -> None:
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(200, 200)
    buf = io.BytesIO()
    writer.write(buf)
    assert read_page(PdfReader(io.BytesIO(buf.getvalue())).pages[0]) == ""
