"""What every parser returns: the document's extracted text and its heading tree.

A parser turns the bytes of one file into a :class:`ParsedDocument`. Everything downstream
(chunking, hashing, summaries, provenance) works on ``ParsedDocument.text``: every span is a
``[start, end)`` character range into that string, so a passage can always be sliced back out of
the document it came from.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field


@dataclass
class Section:
    """One heading and what lies below it, or the document root (``title is None``, ``depth 0``).

    Attributes:
        title: The heading text as written (numbering included), or None for the root.
        depth: 0 for the root, 1 for the top heading level present in the document, and so on
            (depths are made contiguous by the parser: an ``h1`` followed by an ``h3`` gives 1, 2).
        char_start: Start of the heading itself (0 for the root).
        char_end: End of the section: the start of the next heading at the same or a higher
            level, or the end of the text.
        body_start: Start of the text directly under the heading (after the heading line).
        body_end: End of that text: the start of the first child heading, else ``char_end``.
        children: Sub-sections in document order.
    """

    title: str | None
    depth: int
    char_start: int
    char_end: int
    body_start: int
    body_end: int
    children: list[Section] = field(default_factory=list)

    def walk(self) -> list[Section]:
        """This section and all below it, in document order."""
        out = [self]
        for child in self.children:
            out.extend(child.walk())
        return out


@dataclass
class ParsedDocument:
    """A parsed file.

    Attributes:
        text: The extracted text every span points into.
        root: The heading tree; ``root.title`` is None.
        format: ``markdown``, ``html``, ``pdf`` or ``text``.
        page_starts: For formats with pages, the character offset at which each page starts
            (``page_starts[0] == 0`` is page 1); None otherwise.
        title: The document's title where the format carries one outside its headings (a
            PDF's outline root, first-page title or metadata); None otherwise. A single
            top-level heading that titles the document still wins (see ``indexer.tree``).
    """

    text: str
    root: Section
    format: str
    page_starts: list[int] | None = None
    title: str | None = None

    def pages_for(self, start: int, end: int) -> list[int] | None:
        """The ``[first, last]`` 1-based page range covering ``text[start:end]``, or None."""
        if self.page_starts is None:
            return None
        first = bisect.bisect_right(self.page_starts, start) - 1
        last = bisect.bisect_right(self.page_starts, max(start, end - 1)) - 1
        return [max(first, 0) + 1, max(last, 0) + 1]
