"""PDF parser: page text from pypdf, sections from the outline or from numbered lines."""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass

from pypdf import PdfReader
from pypdf.errors import DependencyError
from pypdf.generic import Destination, DictionaryObject

from indexer.errors import ParseError, UnreadableFileError
from indexer.parsers.base import ParsedDocument
from indexer.parsers.numbering import find_numbered_headings
from indexer.parsers.pdf_contents import contents_entries
from indexer.parsers.pdf_layout import FontCache, read_page
from indexer.parsers.pdf_page_keys import PageKeys, PageTextCache
from indexer.parsers.pdf_pages import clean_pages
from indexer.parsers.pdf_title import pdf_title
from indexer.parsers.tree_builder import Heading, build_tree

log = logging.getLogger(__name__)

PAGE_SEPARATOR = "\n\n"
# Control characters pypdf sometimes leaves in (tab and newline are kept).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_LIGATURES = str.maketrans(
    {
        "\ufb00": "ff",
        "\ufb01": "fi",
        "\ufb02": "fl",
        "\ufb03": "ffi",
        "\ufb04": "ffl",
        "\ufb05": "st",
        "\ufb06": "st",
        "\u00a0": " ",
        "\u00ad": None,  # soft hyphen
    }
)
# What may precede an outline title on its line: a section number or a "Chapter 3" label.
_TITLE_LABEL = re.compile(
    r"\s*(?:(?:[A-Z]|\d+)(?:\.\d+)*\.?|(?:chapter|section|part|appendix)\s+\S+\s*[:.]?)?\s*",
    re.I,
)


@dataclass(frozen=True)
class OutlineItem:
    """One outline (bookmark) entry: its title, depth (1 = top) and 0-based page."""

    title: str
    depth: int
    page: int


def _clean(text: str) -> str:
    # Ligatures would make words unsearchable and titles unmatched; full NFKC would go too far
    # ("cm³" → "cm3").
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_LIGATURES)
    text = _CONTROL.sub("", text)
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))


def _open(data: bytes, filename: str) -> PdfReader:
    if not data.strip():
        raise ParseError("file is empty")
    if b"%PDF-" not in data[:1024]:
        raise ParseError("corrupt PDF: no %PDF header")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise UnreadableFileError(
                f"{filename}: the PDF is encrypted and needs a password to open; save an "
                "unprotected copy (e.g. qpdf --decrypt --password=… in.pdf out.pdf) and ingest that"
            )
        _ = len(reader.pages)
    except (ParseError, UnreadableFileError):
        raise
    except DependencyError as exc:  # AES without the cryptography package: a broken install
        raise UnreadableFileError(f"{filename}: cannot decrypt this PDF: {exc}") from exc
    except Exception as exc:  # pypdf raises many exception types on damaged files
        raise ParseError(f"corrupt PDF: {exc}") from exc
    return reader


def _page_texts(reader: PdfReader, filename: str, cache: PageTextCache | None) -> list[str]:
    texts: list[str] = []
    fonts: FontCache = {}  # each font measured once per document
    keys = PageKeys()
    for number, page in enumerate(reader.pages, start=1):
        key = _page_key(keys, page) if cache is not None else None
        found = cache.get_page(key) if cache is not None and key is not None else None
        if found is not None:
            texts.append(found)
            continue
        try:
            text = _clean(read_page(page, fonts))
        except Exception as exc:  # one broken page should not lose the whole manual
            log.warning("%s: page %d: text extraction failed: %s", filename, number, exc)
            texts.append("")
            continue
        texts.append(text)
        if cache is not None and key is not None:
            cache.put_page(key, text)
    return texts


def _page_key(keys: PageKeys, page: DictionaryObject) -> str | None:
    try:
        return keys.key(page)
    except Exception:  # a page whose objects cannot be read is read (and reported) as before
        return None


def _outline(reader: PdfReader) -> list[OutlineItem]:
    """The outline flattened in document order, or [] when absent or unreadable."""
    items: list[OutlineItem] = []
    try:
        # Iterative pre-order walk; a list following an entry holds that entry's children.
        pending: list[tuple[object, int]] = [(node, 1) for node in reversed(reader.outline)]
        while pending:
            node, depth = pending.pop()
            if isinstance(node, list):
                pending.extend((child, depth + 1) for child in reversed(node))
                continue
            if not isinstance(node, Destination):
                continue
            title = " ".join(_clean(str(node.title or "")).split())
            page = reader.get_destination_page_number(node)
            if title and page is not None and page >= 0:
                items.append(OutlineItem(title, depth, page))
    except Exception as exc:  # a damaged outline falls back to heading detection
        log.warning("unreadable PDF outline: %s", exc)
        return []
    return items


def _starts(pages: list[str]) -> list[int]:
    """Offset of each page in the pages joined with ``PAGE_SEPARATOR``."""
    starts: list[int] = []
    pos = 0
    for page in pages:
        starts.append(pos)
        pos += len(page) + len(PAGE_SEPARATOR)
    return starts


def _line_at(text: str, pos: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return start, len(text) if end == -1 else end


def _find_title(
    pattern: re.Pattern[str], text: str, start: int, limit: int, furniture: frozenset[int]
) -> re.Match[str] | None:
    """The first occurrence that is a line of its own (bar a number label), else the first.

    A cross-reference ("see 5.3.1 Clamping force check.") can precede the heading on its page;
    running headers and footers never count.
    """
    first: re.Match[str] | None = None
    for match in pattern.finditer(text, start, limit):
        line_start, _ = _line_at(text, match.start())
        if line_start in furniture:
            continue
        _, line_end = _line_at(text, match.end())
        if (
            _TITLE_LABEL.fullmatch(text, line_start, match.start())
            and not text[match.end() : line_end].strip()
        ):
            return match
        first = first or match
    return first


def _title_pattern(title: str) -> re.Pattern[str]:
    chars = [re.escape(c) for c in title if not c.isspace()]
    return re.compile(r"\s*".join(chars), re.I)


def _outline_headings(
    items: list[OutlineItem], text: str, page_starts: list[int], furniture: frozenset[int]
) -> list[Heading]:
    """Place each outline entry where its title occurs on (or just after) its page.

    The search starts after the previous heading; see :func:`_find_title` for which
    occurrence wins. An entry whose title is not found is placed at the page start.
    """
    headings: list[Heading] = []
    cursor = 0
    page_ends = [*page_starts[1:], len(text)]
    for item in items:
        page = min(item.page, len(page_starts) - 1)
        start = max(page_starts[page], cursor)
        # A destination can point just above a title that lands on the next page.
        limit = max(page_ends[min(page + 1, len(page_ends) - 1)], start)
        match = _find_title(_title_pattern(item.title), text, start, limit, furniture)
        if match is None:
            headings.append(Heading(item.depth, item.title, start, start))
            continue
        line_start, _ = _line_at(text, match.start())
        head = match.start()
        if line_start >= start and _TITLE_LABEL.fullmatch(text, line_start, match.start()):
            head = line_start
        _, line_end = _line_at(text, match.end())
        body = min(line_end + 1, len(text))
        headings.append(Heading(item.depth, item.title, head, body))
        cursor = body
    return headings


def parse_pdf(
    data: bytes, *, filename: str, page_cache: PageTextCache | None = None
) -> ParsedDocument:
    """Parse a PDF file.

    Page texts are joined with a blank line and ``page_starts`` records where each begins.
    Sections come from the outline (bookmarks) when there is one: each entry is placed at a
    whitespace- and case-insensitive occurrence of its title at or after its destination
    page's start (and after the previous heading), preferring one that stands on its own
    line, else at the page start. Without an outline, numbered lines such as ``3.2 Spindle
    maintenance`` are taken as headings. Running headers/footers are never taken for headings.

    Args:
        data: The raw file content.
        filename: The file name, used in log messages.
        page_cache: Texts of pages read before, by page content (a revision reads the pages
            it changed only); every page is read when None.

    Returns:
        The parsed document.

    Raises:
        ParseError: Corrupt or unreadable PDF, or one without extractable text.
        UnreadableFileError: The PDF is encrypted with a password.
    """
    reader = _open(data, filename)
    raw_pages = _page_texts(reader, filename, page_cache)
    if not any(page.strip() for page in raw_pages):
        raise ParseError("no extractable text (scanned PDF?)")
    # Running headers and footers, contents and index pages are dropped from the text (see
    # indexer.parsers.pdf_pages): as passages they match every query and mean nothing.
    cleaned = clean_pages(raw_pages)
    pages = cleaned.pages
    page_starts = _starts(pages)
    text = PAGE_SEPARATOR.join(pages)
    items = _outline(reader)
    furniture: frozenset[int] = frozenset()
    # A lone bookmark (often just the document title) says less than numbered headings.
    headings = _outline_headings(items, text, page_starts, furniture) if len(items) >= 2 else []
    if not headings and len(items) < 2:
        # Without an outline the printed contents, confirmed on the pages they name, are
        # the author's own list of headings.
        entries = contents_entries(raw_pages, pages, cleaned.reference_pages)
        toc = [OutlineItem(e.title, e.depth, e.page) for e in entries]
        headings = _outline_headings(toc, text, page_starts, furniture) if toc else []
    if not headings:
        headings = find_numbered_headings(
            text,
            require_blank_before=False,
            skip_line=furniture.__contains__,
        )
    if not headings and items:
        headings = _outline_headings(items, text, page_starts, furniture)
    return ParsedDocument(
        text=text,
        root=build_tree(headings, len(text)),
        format="pdf",
        page_starts=page_starts,
        title=pdf_title(reader, items),
    )
