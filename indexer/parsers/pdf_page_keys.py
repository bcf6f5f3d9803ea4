"""Content keys of PDF pages, so that a page's text is read again only when the page changed.

A revision of a 300-page PDF usually changes a few pages, but the file is rewritten whole: its
bytes, and often its object numbers, differ everywhere. A page's key is a hash of what its text
extraction reads: the page dictionary (content streams, resources with their fonts and forms,
boxes, rotation) followed through indirect references, each stream by its raw bytes. Object
numbers are not part of it; an object reached twice is hashed once per document.
"""

from __future__ import annotations

from typing import Any, Protocol

import xxhash
from pypdf.generic import (
    ArrayObject,
    DictionaryObject,
    IndirectObject,
    StreamObject,
)

# The page tree and annotations' back-links: not what the page's text is read from.
_SKIPPED = frozenset({"/Parent", "/P", "/StructParents", "/Annots", "/Thumb", "/B"})


class PageTextCache(Protocol):
    """Page texts by page key (:class:`indexer.reuse.Reuse` keeps them in the store)."""

    def get_page(self, key: str) -> str | None:
        """The text read before from a page of this key, or None."""

    def put_page(self, key: str, text: str) -> None:
        """Keep a page's text for its key."""


class PageKeys:
    """Keys of one document's pages; shared objects (fonts, forms) are hashed once."""

    def __init__(self) -> None:
        self._done: dict[tuple[int, int], bytes] = {}
        self._open: set[tuple[int, int]] = set()

    def key(self, page: DictionaryObject) -> str:
        """The page's content key."""
        return self._digest(page).hex()

    def _digest(self, obj: Any) -> bytes:
        if isinstance(obj, IndirectObject):
            ref = (obj.idnum, obj.generation)
            if ref in self._done:
                return self._done[ref]
            if ref in self._open:  # a cycle: the object is being hashed further up
                return b"cycle"
            self._open.add(ref)
            try:
                digest = self._digest(obj.get_object())
            finally:
                self._open.discard(ref)
            self._done[ref] = digest
            return digest
        h = xxhash.xxh3_128()
        if isinstance(obj, StreamObject):
            h.update(b"S")
            h.update(getattr(obj, "_data", b"") or b"")
        if isinstance(obj, DictionaryObject):
            h.update(b"D")
            for name in sorted(obj):
                if name in _SKIPPED:
                    continue
                h.update(str(name).encode())
                h.update(self._digest(obj.raw_get(name)))
        elif isinstance(obj, ArrayObject):
            h.update(b"A")
            for item in obj:
                h.update(self._digest(item))
        else:
            h.update(type(obj).__name__.encode())
            h.update(repr(obj).encode())
        return h.digest()
