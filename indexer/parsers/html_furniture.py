"""Furniture of a manual of many HTML pages: the blocks that repeat across its pages.

A generator wraps every page in the same template: a footer ("Home Page | Site Map | Contacts",
"Last updated 2023-07-29 20:52:36 UTC"), a site menu, a credit line, a decorative picture
with its caption in the same slot of every page. Like a PDF's running headers these are not
the page's text, and because each is on many pages a passage made of one would match the same
queries everywhere. A block is furniture when its text, digits masked (dates and versions
change from page to page), is found on at least a quarter of the manual's pages (and on three
or more); and a short block holding a picture is furniture when its shape (the block elements
and classes below it) recurs the same way, captions differing, or when its caption links where
the captions of a quarter of the pages do (a picture credit). Headings and preformatted blocks
are never furniture: a manual repeats a section name ("Description", "Method Summary")
or an example line on purpose.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from lxml import etree

_BLOCK_TAGS = frozenset(
    {"p", "div", "table", "ul", "ol", "dl", "blockquote", "center", "address", "section", "td"}
)
_DIGITS = re.compile(r"\d+")
_MIN_CHARS = 8  # shorter repeated blocks ("Note", "Returns:") are labels, not furniture
_MAX_CHARS = 4000  # a repeated block this long is content (a licence), not a page's template
_PICTURE_MAX_WORDS = 40
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_INLINE = frozenset({"a", "em", "strong", "i", "b", "span", "code", "br", "small", "sup", "sub"})
MIN_PAGES = 3
PAGE_SHARE = 0.25


def block_tags() -> frozenset[str]:
    """The elements that can be furniture."""
    return _BLOCK_TAGS


@dataclass(frozen=True)
class Furniture:
    """The fingerprints of a manual's repeated blocks."""

    texts: frozenset[str] = frozenset()
    shapes: frozenset[str] = frozenset()

    def matches(self, el: etree._Element) -> bool:
        """Whether the block is one of the manual's repeated blocks."""
        text = _text_key(el)
        if text is not None and text in self.texts:
            return True
        return any(key in self.shapes for key in _picture_keys(el))

    def __bool__(self) -> bool:
        return bool(self.texts or self.shapes)


def _text_key(el: etree._Element) -> str | None:
    text = " ".join("".join(el.itertext()).split())
    if not _MIN_CHARS <= len(text) <= _MAX_CHARS:
        return None
    return _DIGITS.sub("#", text)


def _shape_key(el: etree._Element) -> str | None:
    if el.find(".//img") is None or len("".join(el.itertext()).split()) > _PICTURE_MAX_WORDS:
        return None
    if next(el.iter(*_HEADINGS), None) is not None:
        return None  # a section (a short page's whole text), not a picture with its caption
    parts = []
    for node in el.iter():
        # Inline markup varies with the caption's words (an <em> more or less): left out.
        if isinstance(node.tag, str) and node.tag not in _INLINE:
            parts.append(f"{node.tag}.{'.'.join(sorted((node.get('class') or '').split()))}")
    return "/".join(parts)


def _picture_keys(el: etree._Element) -> list[str]:
    """A short picture block's shape, and the places its caption links to (a credit line
    pointing where the other pages' do)."""
    shape = _shape_key(el)
    if shape is None:
        return []
    links = sorted({a.get("href") or "" for a in el.iter("a") if "://" in (a.get("href") or "")})
    return [shape, "links:" + " ".join(links)] if links else [shape]


def _blocks(root: etree._Element) -> Iterable[etree._Element]:
    for el in root.iter(*_BLOCK_TAGS):
        if el.getparent() is None:
            continue
        yield el


def find_furniture(pages: list[etree._Element]) -> Furniture:
    """The blocks repeated across ``pages`` (the element trees of one manual's pages)."""
    if len(pages) < MIN_PAGES:
        return Furniture()
    texts: Counter[str] = Counter()
    shapes: Counter[str] = Counter()
    for root in pages:
        page_texts: set[str] = set()
        page_shapes: set[str] = set()
        for el in _blocks(root):
            if el.tag in ("pre",) or el.find(".//pre") is not None:
                continue
            text = _text_key(el)
            if text is not None:
                page_texts.add(text)
            page_shapes.update(_picture_keys(el))
        texts.update(page_texts)
        shapes.update(page_shapes)
    need = max(MIN_PAGES, math.ceil(PAGE_SHARE * len(pages)))
    return Furniture(
        texts=frozenset(t for t, n in texts.items() if n >= need),
        shapes=frozenset(s for s, n in shapes.items() if n >= need),
    )
