"""Markdown parser: CommonMark headings over the original source text."""

from __future__ import annotations

import bisect
import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

from indexer.parsers.base import ParsedDocument
from indexer.parsers.decoding import decode_text
from indexer.parsers.tree_builder import Heading, build_tree

_FRONT_MATTER = re.compile(
    r"\A(?:---|\+\+\+)[ \t]*\n.*?\n(?:---|\+\+\+|\.\.\.)[ \t]*(?:\n|\Z)", re.S
)

_BLOCK_PARSER = MarkdownIt("commonmark").disable("inline")
_INLINE_PARSER = MarkdownIt("commonmark")


def _line_starts(text: str) -> list[int]:
    starts = [0]
    pos = text.find("\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    return starts


def _inline_text(inline: Token) -> str:
    """The plain text of a heading's inline content (emphasis, code and links unwrapped)."""
    parts: list[str] = []
    for child in inline.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(_inline_text(child))
    return " ".join("".join(parts).split())


def parse_markdown(data: bytes, *, filename: str) -> ParsedDocument:
    """Parse a Markdown (CommonMark) file.

    ATX (``## Title``) and Setext (underlined) headings become sections; ``#`` lines inside
    code blocks, and headings nested in block quotes or list items, do not. The extracted text
    is the decoded source itself, so spans index the original Markdown. A leading YAML/TOML
    front-matter block is body text of the root, never a heading.

    Args:
        data: The raw file content.
        filename: The file name, used in error messages.

    Returns:
        The parsed document.

    Raises:
        BadInputError: Empty or binary content.
    """
    text = decode_text(data, filename=filename)
    # markdown-it maps tokens to source lines; nothing else of its output is used. Inline
    # parsing is by far the slowest stage and only heading titles need it.
    env: dict[str, object] = {}
    tokens = _BLOCK_PARSER.parse(text, env)
    starts = _line_starts(text)
    front = _FRONT_MATTER.match(text)
    first_line = bisect.bisect_right(starts, front.end() - 1) if front else 0

    def offset(line: int) -> int:
        return starts[line] if line < len(starts) else len(text)

    headings: list[Heading] = []
    for i, token in enumerate(tokens):
        if token.type != "heading_open" or token.level != 0 or token.map is None:
            continue
        begin, end = token.map
        if begin < first_line:
            continue
        inline = _INLINE_PARSER.parseInline(tokens[i + 1].content, env)
        title = _inline_text(inline[0]) if inline else ""
        if not title:
            continue
        headings.append(Heading(int(token.tag[1]), title, offset(begin), offset(end)))
    return ParsedDocument(
        text=text,
        root=build_tree(headings, len(text)),
        format="markdown",
        title=_front_matter_title(text[: front.end()]) if front else None,
    )


_TITLE_FIELD = re.compile(r"""^title\s*[:=]\s*["']?(.+?)["']?\s*$""", re.M)


def _front_matter_title(front: str) -> str | None:
    """The ``title:`` of a YAML/TOML front-matter block (static-site manuals carry their
    printed title there, not in a heading)."""
    m = _TITLE_FIELD.search(front)
    return " ".join(m.group(1).split()) or None if m else None
