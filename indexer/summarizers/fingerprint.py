"""A fingerprint of the offline summarizer's code, part of its summaries' cache key."""

from __future__ import annotations

from pathlib import Path

from indexer.hashing import hash_bytes, hash_parts

_HERE = Path(__file__).resolve().parent
# The modules that decide what the extractive summarizer quotes (the chat backends' prompts are
# versioned by hand in :mod:`indexer.summarizers.prompts`).
_MODULES = (
    "blocks.py",
    "cues.py",
    "dialogue.py",
    "drafts.py",
    "extractive.py",
    "facts.py",
    "framing.py",
    "sentences.py",
    "terms.py",
    "units.py",
    "../words.py",
    "../tokens.py",
)


def code_fingerprint() -> str:
    """Eight hex digits that change whenever the extractive summarizer's rules change."""
    return hash_parts([hash_bytes((_HERE / name).read_bytes()) for name in _MODULES])[:8]
