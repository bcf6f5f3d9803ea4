"""A revision costs what changed: the parse of a manual's page and the passages of a section are
kept by the content hash of what they are computed from (:mod:`indexer.store.derived`), so an
edit of one page re-parses that page and re-chunks the sections whose text changed only.

Keys include a fingerprint of the code that computes the value (the parsers, the chunker), so a
new version never reuses an old version's result.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from indexer.chunking import Span, chunk_spans
from indexer.hashing import hash_bytes, hash_parts, hash_text
from indexer.parsers.base import ParsedDocument
from indexer.store.derived import DERIVED_FILE, DerivedCache

_HERE = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def reader_fingerprint() -> str:
    """A hash of the code that turns a file's bytes into passages (the parsers, the manual
    reader, the chunker): a new version reads a file again even where its bytes are the same."""
    files = sorted((_HERE / "parsers").rglob("*.py")) + [
        _HERE / name for name in ("manual.py", "chunking.py", "tokens.py")
    ]
    return hash_parts([hash_bytes(f.read_bytes()) for f in files])


class Reuse:
    """Parses and passages computed before, read back instead of computed again."""

    def __init__(self, cache: DerivedCache) -> None:
        self.cache = cache
        self.parsed_reused = 0
        self.parsed_computed = 0

    @classmethod
    def for_store(cls, store: Path) -> Reuse:
        """The reuse cache in a store folder."""
        return cls(DerivedCache(store / DERIVED_FILE))

    def parsed(
        self, name: str, data: bytes, context: str, parse: Callable[[], ParsedDocument]
    ) -> ParsedDocument:
        """The parse of a page (``context``: whatever else the parse depends on)."""
        key = hash_parts([reader_fingerprint(), name, hash_bytes(data), context])
        found = self.cache.get("parsed", key)
        if found is not None:
            try:
                doc = pickle.loads(found)  # our own store's file, written below
            except Exception:  # an unreadable entry is a missing one
                doc = None
            if isinstance(doc, ParsedDocument):
                self.parsed_reused += 1
                return doc
        doc = parse()
        self.parsed_computed += 1
        self.cache.put("parsed", key, pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL))
        return doc

    def get_page(self, key: str) -> str | None:
        """A PDF page's text read before (:class:`indexer.parsers.pdf_page_keys.PageTextCache`)."""
        found = self.cache.get("pdf_page", hash_parts([reader_fingerprint(), key]))
        return None if found is None else found.decode("utf-8")

    def put_page(self, key: str, text: str) -> None:
        """Keep a PDF page's text for its content key."""
        self.cache.put("pdf_page", hash_parts([reader_fingerprint(), key]), text.encode("utf-8"))

    def document(self, data: bytes, filename: str) -> ParsedDocument:
        """One file's parse: read back when these bytes were parsed before (an upload is parsed
        when it is accepted and again by the job), a PDF's unchanged pages read back."""
        from indexer.parsers.registry import parse_bytes  # the format parsers: when one is needed

        return self.parsed(
            filename, data, "", lambda: parse_bytes(data, filename=filename, page_cache=self)
        )

    def spans(
        self, text: str, start: int, end: int, *, chunk_tokens: int, overlap: int, max_chars: int
    ) -> list[Span]:
        """:func:`indexer.chunking.chunk_spans`, reused by the section body's content."""
        body = text[start:end]
        params = f"{chunk_tokens}/{overlap}/{max_chars}"
        key = hash_parts([reader_fingerprint(), params, hash_text(body)])
        found = self.cache.get("spans", key)
        if found is not None:
            return [Span(start + s, start + e) for s, e in json.loads(found)]
        spans = chunk_spans(
            text, start, end, chunk_tokens=chunk_tokens, overlap=overlap, max_chars=max_chars
        )
        rel = [(s.start - start, s.end - start) for s in spans]
        self.cache.put("spans", key, json.dumps(rel).encode())
        return spans

    def flush(self) -> None:
        """Write what was computed since the last flush."""
        self.cache.flush()
