"""Furniture of a manual of many HTML pages: the blocks that repeat across its pages and carry
none of a page's own text.

A generator wraps every page in the same template: a footer ("Home Page | Site Map | Contacts",
"Last updated 2023-07-29 20:52:36 UTC"), a site menu, a credit line, a decorative picture
with its caption in the same slot of every page. Like a PDF's running headers these are not
the page's text, and because each is on many pages a passage made of one would match the same
queries everywhere. But a manual also repeats its own text on purpose: a tutorial's steps
give the same build instructions, every class page of an API names the same base class, a
reference repeats a label ("All Implemented Interfaces:"). What tells the two apart is where
the block stands and what it is made of, not that it repeats:

- **template**: a block whose text, digits masked (dates and versions change from page to
  page), is on at least a quarter of the manual's pages (and on three or more), standing at
  a page's edge: before the page's first heading, or after the last of its own text (text
  that is not repeated and not links). The same block between a page's own paragraphs is
  that page's text;
- **navigation**: such a block made mostly of links into the manual, wherever it stands (a
  menu, a breadcrumb);
- **pictures**: a short block holding a picture whose shape (the block elements and classes
  below it) recurs the same way, captions differing, or whose caption links where the
  captions of a quarter of the pages do (a picture credit).

Headings, blocks holding a heading, and preformatted blocks are never furniture: a manual
repeats a section name ("Description", "Method Summary") or an example on purpose, and a block
around a page's title is the page.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from lxml import etree

# A definition's description (``dd``) is a block (Javadoc's "Author:" entry); its term is a
# label, like a heading.
_BLOCK_TAGS = frozenset(
    {"p", "div", "table", "ul", "ol", "dl", "dd", "blockquote", "center", "address", "section"}
    | {"td"}
)
_DIGITS = re.compile(r"\d+")
_MIN_CHARS = 8  # shorter repeated blocks ("Note", "Returns:") are labels, not furniture
_MAX_CHARS = 4000  # a repeated block this long is content (a licence), not a page's template
_PICTURE_MAX_WORDS = 40
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_INLINE = frozenset({"a", "em", "strong", "i", "b", "span", "code", "br", "small", "sup", "sub"})
_UNPUNCTUATED = str.maketrans("", "", "»›>|•·,:;()[]-–—/.")
Skips = Callable[[etree._Element], bool]
MIN_PAGES = 3
PAGE_SHARE = 0.25
LINK_SHARE = 0.5  # of a navigation block's letters that are link text


@dataclass(frozen=True)
class Furniture:
    """The fingerprints of a manual's repeated blocks: ``texts`` (furniture at a page's edge,
    or made of links) and picture ``shapes``."""

    texts: frozenset[str] = frozenset()
    shapes: frozenset[str] = frozenset()

    def repeated(self, el: etree._Element) -> bool:
        """Whether the block's text is one of the manual's repeated texts."""
        text = text_key(el)
        return text is not None and text in self.texts

    def blocks(self, root: etree._Element, *, skips: Skips) -> list[etree._Element]:
        """The blocks of one page that are furniture (see the module docstring); ``skips``
        tells the page's chrome found before, which is no text of the page."""
        if not self:
            return []
        edges = _Edges(root, self, skips)
        found = []
        for el in _blocks(root):
            if _never(el) or skips(el) or any(skips(p) for p in el.iterancestors()):
                continue
            text = text_key(el)
            if (
                text is not None
                and text in self.texts
                and (edges.outside(el) or _is_navigation(el))
            ) or any(key in self.shapes for key in _picture_keys(el)):
                found.append(el)
        return _outermost(found)

    def __bool__(self) -> bool:
        return bool(self.texts or self.shapes)


def text_key(el: etree._Element) -> str | None:
    """A block's text on one line, digits masked; None when too short or long to be furniture."""
    text = " ".join("".join(el.itertext()).split())
    if not _MIN_CHARS <= len(text) <= _MAX_CHARS:
        return None
    return _DIGITS.sub("#", text)


def _letters(text: str) -> int:
    return len("".join(text.translate(_UNPUNCTUATED).split()))


def _is_navigation(el: etree._Element) -> bool:
    """Mostly link text, the links leading into the manual (a page or an anchor)."""
    links = [a for a in el.iter("a") if a.get("href") is not None]
    inside = [a for a in links if "://" not in (a.get("href") or "")]
    if not links or len(inside) < len(links):
        return False
    total = _letters("".join(el.itertext()))
    return (
        bool(total) and sum(_letters("".join(a.itertext())) for a in inside) >= LINK_SHARE * total
    )


def _never(el: etree._Element) -> bool:
    if el.tag == "pre" or el.find(".//pre") is not None:
        return True
    return next(el.iter(*_HEADINGS), None) is not None


class _Edges:
    """Where a page's own text begins (its first heading, else its first own text) and ends
    (its last text that is neither repeated nor navigation)."""

    def __init__(self, root: etree._Element, furniture: Furniture, skips: Skips) -> None:
        self.order: dict[etree._Element, int] = {}
        first_heading = first_own = last_own = None
        stack: list[tuple[etree._Element, bool]] = [(root, False)]
        i = 0
        while stack:
            el, inside = stack.pop()
            if not isinstance(el.tag, str) or el.tag in ("script", "style", "head") or skips(el):
                continue
            self.order[el] = i
            if el.tag in _HEADINGS:
                first_heading = i if first_heading is None else first_heading
                inside = False  # a heading is the page's own, whatever repeats around it
            elif el.tag in _BLOCK_TAGS and not inside and not _never(el):
                inside = furniture.repeated(el) or _is_navigation(el)
            if not inside and _own_text(el):
                first_own = i if first_own is None else first_own
                last_own = i
            i += 1
            stack.extend((child, inside) for child in reversed(el))
        self.start = first_heading if first_heading is not None else first_own
        self.end = last_own

    def outside(self, el: etree._Element) -> bool:
        at = self.order.get(el)
        if at is None:
            return False
        if self.start is None or self.end is None:
            return True  # nothing of the page is its own: all of it is the template
        last = max((self.order.get(d, at) for d in el.iter()), default=at)
        return last < self.start or at > self.end


def _own_text(el: etree._Element) -> bool:
    if (el.text or "").strip() and el.tag != "a":
        return True
    return any((c.tail or "").strip() for c in el if isinstance(c.tag, str))


def _outermost(found: list[etree._Element]) -> list[etree._Element]:
    marked = set(found)
    return [el for el in found if not any(p in marked for p in el.iterancestors())]


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


def _blocks(root: etree._Element) -> Iterator[etree._Element]:
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
            if _never(el):
                continue
            text = text_key(el)
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
