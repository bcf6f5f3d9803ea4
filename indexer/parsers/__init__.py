"""Parsers: one module per file format, chosen by file extension."""

from indexer.parsers.base import ParsedDocument, Section
from indexer.parsers.registry import parse_bytes, supported_suffixes

__all__ = ["ParsedDocument", "Section", "parse_bytes", "supported_suffixes"]
