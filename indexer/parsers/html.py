"""HTML parser: readable text from the DOM, sections from ``h1``–``h6``.

What is page chrome rather than text (navigation, contents lists, a manual's repeated blocks)
is decided in :mod:`indexer.parsers.html_chrome`; this module walks what is left.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lxml import etree

from indexer.errors import ParseError
from indexer.parsers.base import ParsedDocument
from indexer.parsers.html_chrome import PageChrome, has_class
from indexer.parsers.html_dom import parse_dom
from indexer.parsers.html_furniture import Furniture
from indexer.parsers.tree_builder import Heading, build_tree

_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}


def _names(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Blocks separated by a blank line.
_PARAGRAPH_BLOCKS = _names(
    "p div section article main aside blockquote pre table ul ol dl figure figcaption form "
    "fieldset address hr details summary center caption body html h1 h2 h3 h4 h5 h6"
)
# Blocks separated by a single newline.
_LINE_BLOCKS = _names("li dt dd tr br option legend")
_BREAKING = _PARAGRAPH_BLOCKS | _LINE_BLOCKS | {"td", "th"}
# Never text: scripts, styles, the head, embedded objects, form controls.
_SKIP_TAGS = _names(
    "script style noscript template head title meta link iframe object embed svg canvas "
    "button select input textarea audio video map area"
)
_ADMONITION_CLASSES = _names("note warning caution tip important admonition danger attention hint")
_ADMONITION_TITLES = _names("note warning caution tip important danger")
# DocBook's title page writes each author as a heading (``h3 class="author"``): a credit.
_CREDIT_CLASSES = _names("author authorgroup editor othercredit corpauthor collab")


_OPEN, _CLOSE, _TEXT = 0, 1, 2
# A footnote's marker set as a heading ("(3)", linking back to where it is cited).
_FOOTNOTE_MARK = re.compile(r"[(\[]?\d{1,3}[)\]]?")
_MAX_LIST_INDENT = 8  # nesting levels shown by indentation; deeper items stay at this indent


def _skipped(el: etree._Element, chrome: PageChrome) -> bool:
    name = el.tag
    if not isinstance(name, str):  # comments, processing instructions, entities
        return True
    return name in _SKIP_TAGS or chrome.skips(el)


def _subtree_text(el: etree._Element, chrome: PageChrome, *, keep_whitespace: bool) -> str:
    """All text below ``el``, skipping hidden parts; blocks and ``br`` become separators."""
    parts: list[str] = [el.text or ""]
    stack: list[tuple[int, Any]] = [(_OPEN, child) for child in reversed(el)]
    while stack:
        kind, item = stack.pop()
        if kind == _TEXT:
            parts.append(item)
            continue
        if item.tail:
            stack.append((_TEXT, item.tail))
        if _skipped(item, chrome):
            continue
        if item.tag == "br":
            parts.append("\n" if keep_whitespace else " ")
        elif not keep_whitespace and item.tag in _BREAKING:
            parts.append(" ")
        if item.text:
            parts.append(item.text)
        stack.extend((_OPEN, child) for child in reversed(item))
    text = "".join(parts)
    return text if keep_whitespace else " ".join(text.split())


def _is_admonition(el: etree._Element) -> bool:
    return el.tag not in ("body", "html") and has_class(el, _ADMONITION_CLASSES)


def _is_layout_table(table: etree._Element) -> bool:
    # Tables holding headings or other tables lay out a page rather than hold data.
    return any(node.tag == "table" or node.tag in _HEADINGS for node in table.iterdescendants())


class _TextBuilder:
    """Accumulates extracted text; inline content is buffered until a block boundary."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0
        self.buffer: list[str] = []
        self.pending_break = 0
        self.prefix = ""
        self.headings: list[Heading] = []
        self._awaiting_body: list[int] = []

    def inline(self, text: str) -> None:
        self.buffer.append(text)

    def flush(self, brk: int) -> tuple[int, str] | None:
        """End the current line; the next starts after at least ``brk`` newlines.

        Returns:
            The start offset and text of the line written, or None if the buffer was blank.
        """
        line = " ".join("".join(self.buffer).split())
        self.buffer.clear()
        start = self.emit(line) if line else None
        self.pending_break = max(self.pending_break, brk)
        return None if start is None else (start, line)

    def emit(self, text: str) -> int:
        """Write ``text`` as-is after the pending separator and prefix; returns its start."""
        if self.pos:
            self._write("\n" * max(self.pending_break, 1))
        for index in self._awaiting_body:
            self.headings[index] = _with_body(self.headings[index], self.pos)
        self._awaiting_body.clear()
        if self.prefix:
            self._write(self.prefix)
            self.prefix = ""
        start = self.pos
        self._write(text)
        self.pending_break = 0
        return start

    def add_heading(self, level: int, title: str, start: int) -> None:
        # body_start is known once the next line is written (after its separator).
        self._awaiting_body.append(len(self.headings))
        self.headings.append(Heading(level, title, start, start + len(title)))

    def mark(self) -> tuple[int, int, int]:
        """The state to :meth:`rewind` to: what is written so far."""
        return len(self.parts), self.pos, self.pending_break

    def rewind(self, mark: tuple[int, int, int], heading: int) -> None:
        """Take back the heading ``heading`` (the last one written) and all written after
        ``mark``."""
        count, self.pos, self.pending_break = mark
        del self.parts[count:]
        del self.headings[heading:]
        self._awaiting_body = [i for i in self._awaiting_body if i < heading]

    def finish(self) -> str:
        self.flush(0)
        for index in self._awaiting_body:
            self.headings[index] = _with_body(self.headings[index], self.pos)
        return "".join(self.parts)

    def _write(self, text: str) -> None:
        self.parts.append(text)
        self.pos += len(text)


def _footnote_heading(tag: etree._Element, title: str) -> bool:
    """Whether a heading heads a page's footnotes ("Footnotes") or one of them, by its marker
    linking back to where it is cited (Texinfo sets both as headings): notes on the page's
    text, not sections of the manual."""
    title = title.strip()
    if title.casefold() == "footnotes":
        return True
    back = any((a.get("href") or "").startswith("#") for a in tag.iter("a"))
    return back and _FOOTNOTE_MARK.fullmatch(title) is not None


def _with_body(heading: Heading, body_start: int) -> Heading:
    return Heading(heading.level, heading.title, heading.char_start, body_start)


def _list_start(ol: etree._Element) -> int:
    start = ol.get("start")
    return int(start) if isinstance(start, str) and start.strip().isdigit() else 1


@dataclass
class _OpenHeading:
    """A heading written, while its section lasts: to take it back if chrome was all it held."""

    level: int
    index: int
    mark: tuple[int, int, int]
    end: int
    chrome: bool = False


class _Extractor:
    """Walks the DOM in document order, feeding a :class:`_TextBuilder`.

    A heading whose section held nothing but chrome ("Related Links" over a list of links,
    "Table of Contents" over the page's contents) is taken back: it titles nothing.
    """

    def __init__(self, chrome: PageChrome) -> None:
        self.out = _TextBuilder()
        self.chrome = chrome
        self.list_counters: list[int | None] = []  # None for ul, next number for ol
        self.heading: etree._Element | None = None
        self._heading_mark = (0, 0, 0)
        self._open: list[_OpenHeading] = []
        # how many of the open elements are admonitions and credits: counted on the way
        # down, not looked up from each heading, which is quadratic in the nesting depth
        self._admonitions = 0
        self._credits = 0

    def run(self, root: etree._Element) -> str:
        # Iterative: deeply nested markup must not hit the recursion limit.
        stack: list[tuple[int, Any]] = [(_OPEN, root)]
        while stack:
            kind, item = stack.pop()
            if kind == _TEXT:
                self.out.inline(item)
            elif kind == _CLOSE:
                self.end(item)
                self._admonitions -= _is_admonition(item)
                self._credits -= has_class(item, _CREDIT_CLASSES)
            else:
                # An element's tail is text of its parent: it follows even a skipped element.
                if item.tail:
                    stack.append((_TEXT, item.tail))
                if _skipped(item, self.chrome):
                    if isinstance(item.tag, str) and item.tag not in _SKIP_TAGS:
                        for heading in self._open:
                            heading.chrome = True
                    continue
                if not self.start(item):
                    continue
                self._admonitions += _is_admonition(item)
                self._credits += has_class(item, _CREDIT_CLASSES)
                stack.append((_CLOSE, item))
                stack.extend((_OPEN, child) for child in reversed(item))
                if item.text:
                    stack.append((_TEXT, item.text))
        self.out.flush(0)
        self._close_sections(0)
        return self.out.finish()

    def _close_sections(self, level: int) -> None:
        """End the open sections of ``level`` and deeper, taking back those that held only
        chrome (innermost first, so a parent over emptied children is taken back too)."""
        while self._open and self._open[-1].level >= level:
            section = self._open.pop()
            # The page's first heading is its title: it stays over a page of menus.
            empty = self.out.pos == section.end and not self.out.buffer
            if section.chrome and empty and section.index > 0:
                self.out.rewind(section.mark, section.index)
                if self._open:
                    self._open[-1].chrome = True

    def start(self, tag: etree._Element) -> bool:
        """Handle an opening tag; returns whether to descend into its children."""
        name = tag.tag
        out = self.out
        if self.heading is not None:
            # Inside a heading everything is inline, so the title stays one line.
            if name == "br" or name in _PARAGRAPH_BLOCKS or name in _LINE_BLOCKS:
                out.inline(" ")
            return True
        if name in _HEADINGS:
            out.flush(2)
            self._close_sections(_HEADINGS[name])
            self._heading_mark = out.mark()
            self.heading = tag
        elif name == "br":
            out.flush(1)
        elif name == "pre":
            out.flush(2)
            text = _subtree_text(tag, self.chrome, keep_whitespace=True)
            text = text[1:] if text.startswith("\n") else text
            if text.strip():
                out.emit(_fenced(text.rstrip()))
            out.flush(2)
            return False
        elif name == "table" and not _is_layout_table(tag):
            self.table(tag)
            return False
        elif name in ("ul", "ol"):
            out.flush(1 if self.list_counters else 2)
            self.list_counters.append(_list_start(tag) if name == "ol" else None)
        elif name == "li":
            out.flush(1)
            out.prefix = self.list_marker(tag)
        elif name in _PARAGRAPH_BLOCKS or name in ("td", "th"):
            out.flush(2)
        elif name in _LINE_BLOCKS:
            out.flush(1)
        return True

    def end(self, tag: etree._Element) -> None:
        """Handle a closing tag."""
        name = tag.tag
        out = self.out
        if self.heading is not None:
            if tag is not self.heading:
                return
            self.heading = None
            written = out.flush(2)
            # a title inside an admonition (the heading's own class is not one), or a credit
            admonition = self._admonitions > _is_admonition(tag)
            if (
                written is not None
                and not admonition
                and written[1].strip().rstrip(":").casefold() not in _ADMONITION_TITLES
                and not self._credits
                and not _footnote_heading(tag, written[1])
            ):
                level = _HEADINGS[name]
                self._open.append(
                    _OpenHeading(level, len(out.headings), self._heading_mark, out.pos)
                )
                out.add_heading(level, written[1], written[0])
        elif name in ("ul", "ol"):
            if self.list_counters:
                self.list_counters.pop()
            out.flush(1 if self.list_counters else 2)
        elif name == "li":
            out.flush(1)
            out.prefix = ""
        elif name in _PARAGRAPH_BLOCKS or name in ("td", "th"):
            out.flush(2)
        elif name in _LINE_BLOCKS and name != "br":
            out.flush(1)

    def list_marker(self, li: etree._Element) -> str:
        # Capped: indenting every level made the text of a deeply nested list quadratic in size.
        indent = "  " * min(max(len(self.list_counters) - 1, 0), _MAX_LIST_INDENT)
        if not self.list_counters or self.list_counters[-1] is None:
            return indent + "- "
        number = self.list_counters[-1]
        value = li.get("value")
        if isinstance(value, str) and value.strip().isdigit():
            number = int(value)
        self.list_counters[-1] = number + 1
        return f"{indent}{number}. "

    def table(self, table: etree._Element) -> None:
        """A data table: an optional caption line, then one line per row, cells joined by |."""
        out = self.out
        out.flush(2)
        for child in table:
            if child.tag == "caption":
                out.inline(_subtree_text(child, self.chrome, keep_whitespace=False))
                out.flush(1)
        rows = [
            [
                _subtree_text(cell, self.chrome, keep_whitespace=False)
                for cell in row
                if cell.tag in ("td", "th") and not _skipped(cell, self.chrome)
            ]
            for row in table.iter("tr")
            if not _skipped(row, self.chrome)
        ]
        if rows and any(c.strip() == "(" for c in rows[0]):
            # a first row with a lone opening bracket in a cell of its own splits one line of
            # code (Doxygen's declarations set each parameter in its own cells): no data
            # table, the line is read whole
            rows = [[" ".join(c for cells in rows for c in cells if c.strip())]]
        for cells in rows:
            if any(cells):
                out.inline(" | ".join(cells))
                out.flush(1)
        out.flush(2)


def _fenced(text: str) -> str:
    """Preformatted text as a Markdown code block: the text says what is verbatim, so readers of
    it (the summarizer's blocks, a chatbot's prompt) need not guess code from its lines."""
    fence = "~~~" if "```" in text else "```"
    return f"{fence}\n{text}\n{fence}"


def parse_html(data: bytes, *, filename: str, furniture: Furniture | None = None) -> ParsedDocument:
    """Parse an HTML file.

    The text is built by walking the DOM: block elements on their own lines (blank line
    between paragraphs), ``pre`` verbatim inside a Markdown code fence, table rows as
    ``cell | cell`` lines (a declaration set in cells, its first row holding a lone ``(``, as
    one line), list items with ``- `` or ``N. `` markers. Scripts, styles and page chrome
    (:mod:`indexer.parsers.html_chrome`: navigation, contents lists, the manual's repeated
    blocks) are dropped. ``h1``–``h6`` become sections, except admonition titles ("Note", or
    any heading inside a ``note``/``warning``/… element), a title page's credits (DocBook's
    ``author`` headings) and a page's footnotes (Texinfo's "Footnotes" and "(3)" headings),
    which stay body text, and headings over nothing but chrome. A
    ``<title>`` alone never makes a heading.

    Args:
        data: The raw file content.
        filename: The file name, used in error messages.
        furniture: The repeated blocks of the manual this page belongs to.

    Returns:
        The parsed document.

    Raises:
        BadInputError: Empty or binary content.
        ParseError: The markup could not be parsed.
    """
    root = parse_dom(data, filename=filename)
    return parse_html_tree(root, furniture=furniture, name=filename)


def parse_html_tree(
    root: etree._Element, *, furniture: Furniture | None = None, name: str = ""
) -> ParsedDocument:
    """Parse an HTML page already read into a tree (see :func:`parse_html`); ``name`` is the
    page's file name, which its links to itself may carry.

    Raises:
        ParseError: The page holds no text.
    """
    extractor = _Extractor(PageChrome(root, furniture=furniture, name=name))
    extracted = extractor.run(root)
    if not extracted.strip():
        raise ParseError("HTML contains no text")
    headings = extractor.out.headings
    return ParsedDocument(text=extracted, root=build_tree(headings, len(extracted)), format="html")
