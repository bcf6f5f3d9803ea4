"""Glyph widths of a PDF font, read from the font resource's own objects.

The reading order (``pdf_layout``) needs the advance of each text run to know where it ends.
A font resource states its glyph widths in thousandths of the font size:

- **Simple fonts** (Type1, MMType1, TrueType, Type3): ``/Widths`` holds one width per
  character code from ``/FirstChar`` on; ``/MissingWidth`` in ``/FontDescriptor`` covers the
  codes outside. Type3 widths are in glyph space and scaled by ``/FontMatrix``.
- **Composite fonts** (Type0): the descendant font's ``/W`` array gives widths by CID, either
  ``first [w1 w2 …]`` or ``first last w``; ``/DW`` covers the rest (1000 when absent).
- **The 14 standard fonts** may come with no ``/Widths`` at all: a fixed width per family, the
  mean advance of its glyphs over English manual text (Courier is monospaced, so exact).

Text reaches the visitor decoded, so a character goes back to its code through the font's
``/ToUnicode`` map (``bfchar`` and ``bfrange`` entries); a simple font without one is taken
to use its code point (the standard encodings agree on ASCII). A character the font does not
list gets the default width: ``/MissingWidth`` or ``/DW`` when stated, else the mean of the
listed widths.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pypdf.generic import ArrayObject, DictionaryObject, StreamObject

_SIMPLE = frozenset({"/Type1", "/MMType1", "/TrueType", "/Type3"})
_MAX_CODES = 65_536  # entries read from one font; a malformed range stops there
_CID_DEFAULT = 1000.0  # the PDF specification's /DW when absent
_FALLBACK = 500.0  # a font that lists no width at all
# Mean glyph advance (1/1000 em) of the standard fonts over English manual text, by family
# and weight; the first matching prefix of the base font's name wins.
_STANDARD = (
    ("Courier", 600.0, 600.0),
    ("Helvetica", 440.0, 475.0),
    ("Arial", 440.0, 475.0),
    ("Times", 405.0, 425.0),
    ("Symbol", 590.0, 590.0),
    ("ZapfDingbats", 750.0, 750.0),
)
_HEX = re.compile(rb"<([0-9A-Fa-f\s]*)>")
_BLOCK = re.compile(rb"begin(bfchar|bfrange)(.*?)end\1", re.DOTALL)
_RANGE = re.compile(rb"<([0-9A-Fa-f\s]*)>\s*<([0-9A-Fa-f\s]*)>\s*(<[0-9A-Fa-f\s]*>|\[[^\]]*\])")


@dataclass(frozen=True)
class FontWidths:
    """A font's glyph widths by (decoded) character, in thousandths of the font size."""

    widths: Mapping[str, float]
    default: float

    def text_width(self, text: str, size: float) -> float:
        """The advance of ``text`` set at ``size`` points, in points."""
        return sum(self.widths.get(ch, self.default) for ch in text) / 1000.0 * size


def font_widths(font: DictionaryObject) -> FontWidths:
    """The glyph widths a font resource states (a standard font's fixed width without them).

    Args:
        font: The font resource dictionary (``/Type /Font``).

    Raises:
        ValueError: The resource's width entries are not numbers where the format needs them.
    """
    subtype = font.get("/Subtype")
    to_unicode = _to_unicode(font)
    if subtype in _SIMPLE:
        by_code, stated = _simple_widths(font)
        by_code_point = True
    else:
        by_code, stated = _composite_widths(font)
        by_code_point = False
    scale = _glyph_scale(font) if subtype == "/Type3" else 1.0
    widths: dict[str, float] = {}
    if by_code_point:
        widths.update((chr(code), w * scale) for code, w in by_code.items())
    for code, text in to_unicode.items():
        if code in by_code and len(text) == 1:
            widths[text] = by_code[code] * scale
    if stated is None:
        listed = [w for w in widths.values() if w > 0]
        stated = sum(listed) / len(listed) if listed else _standard_width(font)
    else:
        stated *= scale
    return FontWidths(widths, stated)


def _simple_widths(font: DictionaryObject) -> tuple[dict[int, float], float | None]:
    """Widths by code from /Widths and /FirstChar; /MissingWidth when it is stated."""
    by_code: dict[int, float] = {}
    widths = _resolved(font.get("/Widths"))
    if isinstance(widths, ArrayObject):
        first = int(_resolved(font.get("/FirstChar", 0)))
        for code, width in enumerate(widths[:256], start=max(first, 0)):
            by_code[code] = float(_resolved(width))
    descriptor = _resolved(font.get("/FontDescriptor"))
    missing = None
    if isinstance(descriptor, DictionaryObject):
        value = float(_resolved(descriptor.get("/MissingWidth", 0)))
        missing = value if value > 0 else None
    return by_code, missing


def _composite_widths(font: DictionaryObject) -> tuple[dict[int, float], float]:
    """Widths by CID from the descendant font's /W; its /DW (1000 when absent)."""
    descendants = _resolved(font.get("/DescendantFonts"))
    if not isinstance(descendants, ArrayObject) or not descendants:
        return {}, _CID_DEFAULT
    cid_font = _resolved(descendants[0])
    if not isinstance(cid_font, DictionaryObject):
        return {}, _CID_DEFAULT
    array = _resolved(cid_font.get("/W"))
    by_cid = dict(_w_entries(array)) if isinstance(array, ArrayObject) else {}
    return by_cid, float(_resolved(cid_font.get("/DW", _CID_DEFAULT)))


def _w_entries(array: ArrayObject) -> Iterator[tuple[int, float]]:
    """(CID, width) pairs of a /W array: ``c [w …]`` and ``c_first c_last w`` entries."""
    items = [_resolved(item) for item in array]
    count, i = 0, 0
    while i + 1 < len(items) and count < _MAX_CODES:
        first, after = int(items[i]), items[i + 1]
        if isinstance(after, ArrayObject):
            for offset, width in enumerate(after):
                yield first + offset, float(_resolved(width))
            count += len(after)
            i += 2
        elif i + 2 < len(items):
            last = min(int(after), first + _MAX_CODES - count - 1)
            for cid in range(first, last + 1):
                yield cid, float(items[i + 2])
            count += max(last - first + 1, 0)
            i += 3
        else:
            break


def _to_unicode(font: DictionaryObject) -> dict[int, str]:
    """Code -> text from the font's /ToUnicode CMap (empty when there is none)."""
    stream = _resolved(font.get("/ToUnicode"))
    if not isinstance(stream, StreamObject):
        return {}
    try:
        data = stream.get_data()
    except Exception:  # an undecodable map: codes are taken as code points
        return {}
    out: dict[int, str] = {}
    for kind, body in _BLOCK.findall(data):
        if kind == b"bfchar":
            pairs = _HEX.findall(body)
            for src, dst in zip(pairs[::2], pairs[1::2], strict=False):
                out[_code(src)] = _utf16(dst)
        else:
            for lo, hi, dst in _RANGE.findall(body):
                out.update(_range(_code(lo), _code(hi), dst))
        if len(out) > _MAX_CODES:
            break
    return out


def _range(lo: int, hi: int, dst: bytes) -> Iterator[tuple[int, str]]:
    hi = min(hi, lo + _MAX_CODES)
    if dst.startswith(b"["):
        for code, each in zip(range(lo, hi + 1), _HEX.findall(dst), strict=False):
            yield code, _utf16(each)
        return
    start = _utf16(dst[1:-1])
    if not start:
        return
    # The last UTF-16 unit counts up along the range (the CMap convention).
    for offset in range(hi - lo + 1):
        yield lo + offset, start[:-1] + chr(ord(start[-1]) + offset)


def _code(hex_digits: bytes) -> int:
    digits = re.sub(rb"\s", b"", hex_digits)
    return int(digits, 16) if digits else 0


def _utf16(hex_digits: bytes) -> str:
    raw = bytes.fromhex(re.sub(rb"\s", b"", hex_digits).decode("ascii"))
    return raw.decode("utf-16-be", errors="ignore")


def _glyph_scale(font: DictionaryObject) -> float:
    """Type3 widths are in glyph space: 1000 x the /FontMatrix's horizontal scale."""
    matrix = _resolved(font.get("/FontMatrix"))
    if isinstance(matrix, ArrayObject) and matrix:
        return abs(float(_resolved(matrix[0]))) * 1000.0
    return 1.0


def _standard_width(font: DictionaryObject) -> float:
    """A standard font's fixed width by family and weight; 500 for any other font."""
    name = str(_resolved(font.get("/BaseFont", ""))).lstrip("/")
    name = name.split("+", 1)[-1]  # a subset's tag, "ABCDEF+Helvetica"
    for family, regular, bold in _STANDARD:
        if name.startswith(family):
            return bold if "Bold" in name else regular
    return _FALLBACK


def _resolved(value: Any) -> Any:
    return value.get_object() if hasattr(value, "get_object") else value
