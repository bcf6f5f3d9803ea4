"""Content hashes (xxh3_128) for passages, Merkle nodes and cache keys."""

from __future__ import annotations

import re
from collections.abc import Iterable

import xxhash

_WS = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Whitespace-collapsed, stripped text: what a passage hash is computed over."""
    return _WS.sub(" ", text).strip()


def hash_bytes(data: bytes) -> str:
    """Hex xxh3_128 of raw bytes."""
    return xxhash.xxh3_128_hexdigest(data)


def hash_text(text: str) -> str:
    """Hex xxh3_128 of the normalized text."""
    return hash_bytes(normalize(text).encode("utf-8"))


def hash_parts(parts: Iterable[str]) -> str:
    """Hash of an ordered sequence of strings, unambiguous whatever the strings contain."""
    h = xxhash.xxh3_128()
    for part in parts:
        data = part.encode("utf-8")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def merkle(heading: str | None, child_hashes: Iterable[str]) -> str:
    """An inner node's hash: its heading and its children's hashes, in order."""
    return hash_parts(["node", heading or "", *child_hashes])
