"""Choose a parser by file extension; transparently decompress ``.gz`` files."""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Callable

from indexer.errors import BadInputError, ParseError, TooLargeError, UnsupportedFormatError
from indexer.parsers.base import ParsedDocument
from indexer.parsers.html import parse_html
from indexer.parsers.markdown import parse_markdown
from indexer.parsers.pdf import parse_pdf
from indexer.parsers.pdf_page_keys import PageTextCache
from indexer.parsers.text import parse_text

Parser = Callable[..., ParsedDocument]

_PARSERS: dict[str, Parser] = {
    ".md": parse_markdown,
    ".markdown": parse_markdown,
    ".html": parse_html,
    ".htm": parse_html,
    ".pdf": parse_pdf,
    ".txt": parse_text,
    ".text": parse_text,
}
MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024


def _split_suffix(filename: str) -> tuple[str, bool]:
    """The format suffix of ``filename`` (lower case) and whether it is gzip-compressed."""
    name = filename.replace("\\", "/").rsplit("/", 1)[-1].lower()
    compressed = name.endswith(".gz")
    if compressed:
        name = name[:-3]
    dot = name.rfind(".")
    return (name[dot:] if dot > 0 else ""), compressed


def supported_suffixes() -> frozenset[str]:
    """Every file suffix :func:`parse_bytes` accepts, e.g. ``.md`` and ``.md.gz``.

    Compound suffixes are listed whole, so test a file with ``name.endswith(...)`` or
    :func:`is_supported` rather than ``Path.suffix``.
    """
    return frozenset(_PARSERS) | frozenset(suffix + ".gz" for suffix in _PARSERS)


def is_supported(filename: str) -> bool:
    """Whether :func:`parse_bytes` has a parser for ``filename``."""
    return _split_suffix(filename)[0] in _PARSERS


def _gunzip(data: bytes, filename: str) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            out = stream.read(MAX_DECOMPRESSED_BYTES + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise ParseError(f"corrupt gzip data in {filename}: {exc}") from exc
    if len(out) > MAX_DECOMPRESSED_BYTES:
        raise TooLargeError(
            f"{filename} decompresses to more than {MAX_DECOMPRESSED_BYTES // (1024 * 1024)} MB"
        )
    return out


def plain_bytes(data: bytes, *, filename: str) -> bytes:
    """The file's content, decompressed when ``filename`` ends in ``.gz``.

    Raises:
        BadInputError: An empty ``.gz`` file.
        ParseError: Corrupt gzip data.
        TooLargeError: It decompresses to more than 64 MB.
    """
    if not _split_suffix(filename)[1]:
        return data
    if not data:
        raise BadInputError("file is empty")
    return _gunzip(data, filename)


def parse_bytes(
    data: bytes, *, filename: str, page_cache: PageTextCache | None = None
) -> ParsedDocument:
    """Parse one file with the parser its extension calls for.

    Args:
        data: The raw file content.
        filename: The file name (a path is fine); its extension picks the parser. A ``.gz``
            file (e.g. ``guide.md.gz``) is decompressed first, up to 64 MB.
        page_cache: For a PDF, the texts of pages read before (see :func:`parse_pdf`).

    Returns:
        The parsed document.

    Raises:
        UnsupportedFormatError: No parser for the extension.
        TooLargeError: A ``.gz`` file decompresses to more than 64 MB.
        BadInputError: Empty or binary content.
        ParseError: Corrupt or unparseable content.
    """
    suffix, compressed = _split_suffix(filename)
    parser = _PARSERS.get(suffix)
    if parser is None:
        shown = suffix + (".gz" if compressed else "") if suffix or compressed else "(none)"
        supported = ", ".join(sorted(_PARSERS))
        raise UnsupportedFormatError(
            f"unsupported file type {shown!r} for {filename} (supported: {supported}, and .gz)"
        )
    plain = plain_bytes(data, filename=filename)
    if parser is parse_pdf and page_cache is not None:
        return parse_pdf(plain, filename=filename, page_cache=page_cache)
    return parser(plain, filename=filename)
