"""Split a section's body into overlapping passages on sentence boundaries.

llama-index's ``SentenceSplitter`` does the splitting (paragraphs, then sentences, then words as
a last resort), sized with the embedding model's own tokenizer so that no passage is longer than
the model's window. Each chunk is located back in the body so it keeps an exact character span.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from indexer.tokens import token_ids


def _point_tiktoken_at_bundled_cache() -> None:
    # llama-index falls back to tiktoken in places; its bundled cache avoids a download.
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        return
    import importlib.util

    spec = importlib.util.find_spec("llama_index.core")
    if spec and spec.submodule_search_locations:
        base = list(spec.submodule_search_locations)[0]
        os.environ["TIKTOKEN_CACHE_DIR"] = os.path.join(base, "_static", "tiktoken_cache")


@dataclass(frozen=True)
class Span:
    """A ``[start, end)`` character range."""

    start: int
    end: int


@lru_cache(maxsize=8)
def _splitter(chunk_tokens: int, overlap: int) -> Any:
    _point_tiktoken_at_bundled_cache()
    from llama_index.core.node_parser import SentenceSplitter

    return SentenceSplitter(
        chunk_size=chunk_tokens, chunk_overlap=min(overlap, chunk_tokens // 2), tokenizer=token_ids
    )


def _locate(body: str, chunk: str, cursor: int) -> tuple[int, int] | None:
    i = body.find(chunk, cursor)
    if i < 0:
        i = body.find(chunk)
    if i >= 0:
        return i, i + len(chunk)
    words = chunk.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    m = re.compile(pattern).search(body, cursor) or re.compile(pattern).search(body)
    return (m.start(), m.end()) if m else None


def chunk_spans(text: str, start: int, end: int, *, chunk_tokens: int, overlap: int) -> list[Span]:
    """Passages of ``text[start:end]`` as spans into ``text``.

    Args:
        text: The document's extracted text.
        start: Start of the section body.
        end: End of the section body.
        chunk_tokens: Maximum passage length in model tokens.
        overlap: Tokens shared by consecutive passages.

    Returns:
        Spans in document order; empty when the body holds no words.
    """
    body = text[start:end]
    if not body.strip():
        return []
    if len(token_ids(body)) <= chunk_tokens:
        lead = len(body) - len(body.lstrip())
        return [Span(start + lead, start + len(body.rstrip()))]
    spans: list[Span] = []
    cursor = 0
    for chunk in _splitter(chunk_tokens, overlap).split_text(body):
        chunk = chunk.strip()
        if not chunk:
            continue
        found = _locate(body, chunk, cursor)
        if found is None:
            continue
        s, e = found
        spans.append(Span(start + s, start + e))
        cursor = s + 1
    return spans
