"""Parsers: one module per file format, chosen by file extension.

The format modules (PDF, HTML, Markdown) are imported on first use of :func:`parse_bytes` or
:func:`supported_suffixes`, so what needs only :class:`ParsedDocument` (the catalog, the tree)
does not load them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from indexer.parsers.base import ParsedDocument, Section

if TYPE_CHECKING:
    from indexer.parsers.registry import parse_bytes, supported_suffixes

_REGISTRY_NAMES = frozenset({"parse_bytes", "supported_suffixes"})


def __getattr__(name: str) -> Any:
    if name in _REGISTRY_NAMES:
        from indexer.parsers import registry

        return getattr(registry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ParsedDocument", "Section", "parse_bytes", "supported_suffixes"]
