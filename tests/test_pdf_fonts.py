"""Glyph widths read from a font resource's own objects (``indexer.parsers.pdf_fonts``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pypdf import PdfReader
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    FloatObject,
    NameObject,
    NumberObject,
)

from indexer.parsers.pdf_fonts import font_widths
from tests.pdfgen import build_pdf


def _name(value: str) -> NameObject:
    return NameObject(value)


def _array(*values: object) -> ArrayObject:
    return ArrayObject(
        v if isinstance(v, ArrayObject) else NumberObject(v)  # type: ignore[arg-type]
        for v in values
    )


def _font(**entries: object) -> DictionaryObject:
    font = DictionaryObject({_name("/Type"): _name("/Font")})
    for key, value in entries.items():
        font[_name(f"/{key}")] = value  # type: ignore[assignment]
    return font


def _to_unicode(cmap: str) -> DecodedStreamObject:
    stream = DecodedStreamObject()
    stream.set_data(cmap.encode("ascii"))
    return stream


def test_simple_font_widths_by_code_from_first_char() -> None:
    font = _font(Subtype=_name("/Type1"), FirstChar=NumberObject(65), Widths=_array(700, 650))
    widths = font_widths(font)
    assert widths.text_width("AB", 10.0) == pytest.approx(13.5)
    # Unlisted characters get the mean of the listed widths (no /MissingWidth stated).
    assert widths.text_width("z", 10.0) == pytest.approx(6.75)


def test_missing_width_of_the_descriptor_covers_unlisted_codes() -> None:
    descriptor = DictionaryObject({_name("/MissingWidth"): NumberObject(250)})
    font = _font(
        Subtype=_name("/TrueType"),
        FirstChar=NumberObject(65),
        Widths=_array(700),
        FontDescriptor=descriptor,
    )
    assert font_widths(font).text_width("Az", 1.0) == pytest.approx(0.95)


def test_composite_font_w_array_both_forms_and_dw_through_to_unicode() -> None:
    # CIDs 3..4 listed one by one, 10..12 as a range; /ToUnicode maps CIDs to text.
    cid_font = DictionaryObject(
        {
            _name("/W"): _array(3, _array(300, 400), 10, 12, 800),
            _name("/DW"): NumberObject(1000),
        }
    )
    cmap = (
        "begincmap\n2 beginbfchar\n<0003> <0061>\n<0004> <0062>\nendbfchar\n"
        "1 beginbfrange\n<000A> <000C> <0041>\nendbfrange\nendcmap"
    )
    font = _font(
        Subtype=_name("/Type0"),
        DescendantFonts=ArrayObject([cid_font]),
        ToUnicode=_to_unicode(cmap),
    )
    widths = font_widths(font)
    assert widths.widths == {"a": 300.0, "b": 400.0, "A": 800.0, "B": 800.0, "C": 800.0}
    assert widths.text_width("abC", 1.0) == pytest.approx(1.5)
    assert widths.text_width("?", 1.0) == pytest.approx(1.0)  # /DW


def test_bfrange_with_an_array_of_destinations() -> None:
    cid_font = DictionaryObject({_name("/W"): _array(1, _array(111, 222))})
    cmap = "1 beginbfrange\n<0001> <0002> [<0078> <0079>]\nendbfrange"
    font = _font(
        Subtype=_name("/Type0"),
        DescendantFonts=ArrayObject([cid_font]),
        ToUnicode=_to_unicode(cmap),
    )
    assert font_widths(font).widths == {"x": 111.0, "y": 222.0}


def test_standard_font_without_widths_gets_its_family_width() -> None:
    courier = font_widths(_font(Subtype=_name("/Type1"), BaseFont=_name("/Courier-Bold")))
    helvetica = font_widths(_font(Subtype=_name("/Type1"), BaseFont=_name("/Helvetica")))
    bold = font_widths(_font(Subtype=_name("/Type1"), BaseFont=_name("/Helvetica-Bold")))
    unknown = font_widths(_font(Subtype=_name("/Type1"), BaseFont=_name("/Mystery")))
    assert courier.text_width("abcd", 10.0) == pytest.approx(24.0)  # monospaced: exact
    assert helvetica.default < bold.default < courier.default
    assert unknown.default == 500.0


def test_type3_widths_are_scaled_by_the_font_matrix() -> None:
    matrix = ArrayObject([FloatObject(0.01), *(NumberObject(v) for v in (0, 0, 1, 0, 0))])
    font = _font(
        Subtype=_name("/Type3"), FirstChar=NumberObject(97), Widths=_array(50), FontMatrix=matrix
    )
    assert font_widths(font).text_width("a", 10.0) == pytest.approx(5.0)


def test_widths_that_are_not_numbers_raise_value_error() -> None:
    font = _font(Subtype=_name("/Type1"), Widths=ArrayObject([_name("/wide")]))
    with pytest.raises(ValueError):
        font_widths(font)


def test_a_generated_pdf_measures_its_text_runs(tmp_path: Path) -> None:
    """The fonts a real PDF's text visitor hands over are read, each run given a width."""
    target = tmp_path / "m.pdf"
    build_pdf("# Title\n\nSome text of the manual.\n", target)
    measured: list[float] = []

    def visit(text: str, cm: object, tm: object, font: object, size: float) -> None:
        if text.strip() and isinstance(font, DictionaryObject):
            measured.append(font_widths(font).text_width(text.strip(), float(size)))

    PdfReader(target).pages[0].extract_text(visitor_text=visit)
    assert measured
    assert all(w > 0 for w in measured)
