"""Build a :class:`Section` tree from a flat list of headings."""

from __future__ import annotations

from dataclasses import dataclass

from indexer.parsers.base import Section


@dataclass(frozen=True)
class Heading:
    """One heading found by a parser.

    Attributes:
        level: The raw level (``h2`` → 2, ``3.2.1`` → 3); only the relative order matters.
        title: The heading text.
        char_start: Where the heading itself starts in the extracted text.
        body_start: Where the text under the heading starts (after the heading line).
    """

    level: int
    title: str
    char_start: int
    body_start: int


def build_tree(headings: list[Heading], text_len: int) -> Section:
    """Turn headings (in document order) into a nested Section tree.

    Depths are made contiguous: a heading's depth is one more than the depth of the nearest
    enclosing heading with a lower raw level, so ``h1, h3`` gives depths 1, 2 and a skipped
    level never creates a phantom section. Works iteratively, so nesting depth is unbounded.

    Args:
        headings: Headings sorted by ``char_start``.
        text_len: Length of the extracted text.

    Returns:
        The root section (depth 0, title None) spanning the whole text.
    """
    root = Section(title=None, depth=0, char_start=0, char_end=text_len, body_start=0, body_end=0)
    # Stack of (raw level, section); the root sits at raw level -inf.
    stack: list[tuple[float, Section]] = [(float("-inf"), root)]
    for h in sorted(headings, key=lambda x: x.char_start):
        while stack[-1][0] >= h.level:
            _, closed = stack.pop()
            closed.char_end = h.char_start
        parent = stack[-1][1]
        body_start = min(max(h.body_start, h.char_start), text_len)
        section = Section(
            title=h.title,
            depth=parent.depth + 1,
            char_start=h.char_start,
            char_end=text_len,
            body_start=body_start,
            body_end=text_len,
        )
        parent.children.append(section)
        stack.append((h.level, section))
    for _, open_section in stack[1:]:
        open_section.char_end = text_len
    for section in root.walk():
        # Two headings can share an offset (e.g. PDF bookmarks placed at a page start), so keep
        # body spans inside their section.
        section.body_start = min(section.body_start, section.char_end)
        first_child = section.children[0].char_start if section.children else section.char_end
        section.body_end = max(min(first_child, section.char_end), section.body_start)
    return root
