"""A PDF without an outline: its printed contents confirm the headings (pdf_contents)."""

from __future__ import annotations

from pathlib import Path

from reportlab.pdfgen.canvas import Canvas

from indexer.parsers import parse_bytes
from indexer.parsers.pdf_contents import contents_entries

BODY = [
    "The spindle motor drives the chuck through a belt and a pulley.",
    "Check the belt every month and replace one that shows wear.",
    "Operators record the reading in the log book after each shift.",
]
# Printed page numbers start at 1 on the first body page (index 2: a title page and the
# contents come first).
CONTENTS = [
    "Contents",
    "Spindle care . . . . . . . . . . . . 1",
    "Belts and pulleys . . . . . . . . . 1",
    "Coolant . . . . . . . . . . . . . . 2",
    "Cleaning the sump . . . . . . . . 3",
    "Electrical faults . . . . . . . . . 4",
    "Index of parts . . . . . . . . . . 9",  # names a page the manual does not have
]


def _write(path: Path, pages: list[list[tuple[int, str]]]) -> bytes:
    canvas = Canvas(str(path))
    for lines in pages:
        y = 780
        for size, text in lines:
            canvas.setFont("Helvetica-Bold" if size > 10 else "Helvetica", size)
            canvas.drawString(72, y, text)
            y -= size * 1.6
        canvas.showPage()
    canvas.save()
    return path.read_bytes()


def _body(page: int) -> list[tuple[int, str]]:
    return [(10, f"{line} See step {page}.{i}.") for i, line in enumerate(BODY)]


def _manual(path: Path) -> bytes:
    steps = [(10, "1. Stop the machine."), (10, "2. Open the guard."), (10, "3. Drain the sump.")]
    pages = [
        [(24, "Lathe Manual"), (10, "Workshop edition")],
        [(14, CONTENTS[0]), *((10, line) for line in CONTENTS[1:])],
        [(14, "Spindle care"), *_body(1), (12, "Belts and pulleys"), *_body(2)],
        [(14, "Coolant"), *_body(3), *steps],
        [(12, "Cleaning the sump"), *_body(4), *steps],
        [(14, "Electrical faults"), *_body(5)],
    ]
    return _write(path, pages)


def test_contents_entries_name_the_headings_and_their_pages(tmp_path: Path) -> None:
    doc = parse_bytes(_manual(tmp_path / "m.pdf"), filename="m.pdf")
    titles = [c.title for c in doc.root.children]
    # Unnumbered headings (numbered-line detection finds none) and no numbered list step.
    assert titles == [
        "Spindle care",
        "Belts and pulleys",
        "Coolant",
        "Cleaning the sump",
        "Electrical faults",
    ]
    coolant = doc.root.children[2]
    assert doc.text[coolant.char_start :].startswith("Coolant")
    assert doc.page_starts[3] <= coolant.char_start < doc.page_starts[4]


def test_entries_are_confirmed_only_on_the_page_they_name() -> None:
    contents = "\n".join(CONTENTS)
    cleaned = [
        "Lathe",
        "",
        "Spindle care\na",
        "Coolant\nb",
        "Cleaning the sump\nc",
        "Belts and pulleys",
    ]
    # "Belts and pulleys" is printed on page 1 (index 2) by the contents but stands on index 5;
    # "Electrical faults" (page 4, index 5) is not there either; "Index of parts" names page 9.
    entries = contents_entries(["Lathe", contents, *cleaned[2:]], cleaned, [1])
    assert [(e.title, e.page) for e in entries] == [
        ("Spindle care", 2),
        ("Coolant", 3),
        ("Cleaning the sump", 4),
    ]


def test_numbering_and_case_may_differ_between_entry_and_heading() -> None:
    contents = "\n".join(
        [
            "1 SPINDLE CARE . . . . . 1",
            "1.1 Belts . . . . . 1",
            "2 Coolant . . . . . 2",
            "3 Faults . . . . . 3",
        ]
    )
    cleaned = ["", "", "1. Spindle care\n1.1. belts\nx", "2 COOLANT\ny", "Faults\nz"]
    entries = contents_entries(["", contents, *cleaned[2:]], cleaned, [1])
    assert [(e.title, e.depth, e.page) for e in entries] == [
        ("1 SPINDLE CARE", 1, 2),
        ("1.1 Belts", 2, 2),
        ("2 Coolant", 1, 3),
        ("3 Faults", 1, 4),
    ]


def test_an_index_is_not_a_table_of_contents() -> None:
    index = "\n".join(["belt, 3, 7", "chuck, 2", "coolant, 4, 9", "fuse, 5", "guard, 6"])
    assert contents_entries(["", index, "belt\nx", "y"], ["", "", "belt\nx", "y"], [1]) == []
