"""PDF page cleanup (furniture, contents and index pages, hyphenation) and the PDF title."""

from __future__ import annotations

from pathlib import Path

from reportlab.pdfgen.canvas import Canvas

from indexer.parsers import parse_bytes
from indexer.parsers.pdf_pages import clean_pages, is_reference_page
from indexer.tree import build_tree

WORDS = ["spindle", "belt", "coolant", "pump", "relay", "fuse", "guard", "clamp", "chuck"]


def _body(p: int) -> str:
    """Four lines of text that differ from page to page (as real pages do)."""
    w = [WORDS[(p + i) % len(WORDS)] for i in range(4)]
    return (
        f"The spindle motor drives the {w[0]} through a belt.\n"
        f"Check the {w[1]} every month and replace one that shows {w[2]} wear.\n"
        f"Operators record the {w[3]} reading in the log book.\n"
        f"The next check covers the {w[0]} and the {w[2]}."
    )


def _book(pages: int = 12) -> list[str]:
    """Page texts as a PDF extractor returns them: headers with the printed page number
    (offset 2 from the index) and the current section, alternating sides, a contents page."""
    out = [
        "Acme M500 Service Manual\nSecond edition",
        "Contents\n1 Safety . . . . . . . 1\n2 Spindle . . . . . . . 3\n2.1 Belts . . . . . 4\n"
        "3 Coolant . . . . . . 7\n4 Electrical . . . . 9\n5 Index . . . . . . . 10",
    ]
    for p in range(2, pages):
        printed = p - 1
        header = (
            f"{printed} Acme M500 section {p // 3}"
            if p % 2
            else f"Chapter {p // 3}: Topic {p // 3} {printed}"
        )
        out.append(f"{header}\n{_body(p)}")
    return out


def test_running_headers_with_page_numbers_are_removed() -> None:
    cleaned = clean_pages(_book())
    joined = "\n".join(cleaned.pages)
    assert "Acme M500 section" not in joined and "Chapter " not in joined
    assert joined.count("The spindle motor drives") == 10  # the body itself is all kept
    assert cleaned.furniture_lines == 10


def test_contents_page_text_is_dropped_and_the_page_kept() -> None:
    cleaned = clean_pages(_book())
    assert cleaned.reference_pages == [1]
    assert cleaned.pages[1] == "" and len(cleaned.pages) == 12
    assert cleaned.pages[0].startswith("Acme M500 Service Manual")


def test_index_pages_and_body_with_numbers() -> None:
    index = ["Index", "A", "alignment, 12, 14", "axis, 3-5", "B", "belt tension, 4, 22"]
    assert is_reference_page(index + ["bolts, 7", "brakes, 9, 10"])
    table = [
        "Torque values for the spindle mounting bolts are given below in newton metres.",
        "Use a calibrated wrench and tighten in a cross pattern, checking twice.",
        "M6 bolt 10",
        "M8 bolt 25",
        "M10 bolt 49",
        "M12 bolt 86",
        "Retighten after the first 50 hours of operation and record the values.",
        "A loose spindle mount is the most common cause of chatter marks on parts.",
        "The table applies to dry threads; reduce by a fifth for lubricated threads.",
    ]
    assert not is_reference_page(table)


def test_a_chapters_own_contents_goes_and_its_heading_stays() -> None:
    page = (
        "3. Programming with the library\nTable of Contents\n3.1. Structure . . . . . . 8\n"
        "3.2. Errors . . . . . . . 10\n3.3. Interface . . . . 11\nThe library has two levels."
    )
    pages = clean_pages(["Title page", page, "More text follows here."]).pages
    assert pages[1] == "3. Programming with the library\nThe library has two levels."


def test_hyphenation_is_joined_unless_the_document_writes_the_hyphen() -> None:
    pages = clean_pages(
        [
            "The library handles DER manip-\nulation of structures.",
            "Use the command-line tool or the command-\nline options described below.",
        ]
    ).pages
    assert "manipulation of structures" in pages[0]
    assert "command-line options" in pages[1]


def _canvas_pdf(path: Path, *, title: str | None, pages: list[list[tuple[int, str]]]) -> bytes:
    canvas = Canvas(str(path))
    if title is not None:
        canvas.setTitle(title)
    for lines in pages:
        y = 780
        for size, text in lines:
            canvas.setFont("Helvetica", size)
            canvas.drawString(72, y, text)
            y -= size * 1.6
        canvas.showPage()
    canvas.save()
    return path.read_bytes()


def test_pdf_title_is_the_first_pages_largest_text(tmp_path: Path) -> None:
    pages = [[(11, "Version 1.0.8"), (24, "Libwidget Reference"), (11, "by A. Author")]]
    pages += [[(10, f"1.{i} Body heading"), (10, "Some text about widgets.")] for i in range(3)]
    data = _canvas_pdf(tmp_path / "a.pdf", title="manual.dvi", pages=pages)
    doc = parse_bytes(data, filename="a.pdf")
    assert doc.title == "Libwidget Reference"
    tree = build_tree(doc, chunk_tokens=200, overlap=20)
    assert tree.title == "Libwidget Reference"
    assert all(p.heading_path[0] == "Libwidget Reference" for p in tree.passages())


def test_pdf_title_falls_back_to_the_metadata(tmp_path: Path) -> None:
    pages = [[(10, "x 1"), (10, "y 2")], [(10, "Some text about widgets.")]]
    data = _canvas_pdf(tmp_path / "b.pdf", title="Widget Guide", pages=pages)
    assert parse_bytes(data, filename="b.pdf").title == "Widget Guide"
