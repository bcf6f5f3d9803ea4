"""Plain-text parser: numbered section headings when present, else a single root section."""

from __future__ import annotations

from indexer.parsers.base import ParsedDocument
from indexer.parsers.decoding import decode_text
from indexer.parsers.numbering import find_numbered_headings
from indexer.parsers.tree_builder import build_tree


def parse_text(data: bytes, *, filename: str) -> ParsedDocument:
    """Parse a plain-text file.

    Headings are lines such as ``3.2 Spindle maintenance`` preceded by a blank line (see
    :func:`indexer.parsers.numbering.find_numbered_headings`); at least two are required,
    otherwise the document is the root alone with the whole text as its body.

    Args:
        data: The raw file content.
        filename: The file name, used in error messages.

    Returns:
        The parsed document; its text is the decoded file.

    Raises:
        BadInputError: Empty or binary content.
    """
    text = decode_text(data, filename=filename)
    headings = find_numbered_headings(text, require_blank_before=True)
    return ParsedDocument(text=text, root=build_tree(headings, len(text)), format="text")
