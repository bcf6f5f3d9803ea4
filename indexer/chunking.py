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


MAX_PASSAGE_CHARS = 2000
"""Default hard cap on a passage's length in characters (setting ``chunk_max_chars``)."""

# The splitter sees bounded blocks of a long body, cut at a paragraph, line, sentence or word
# boundary: its cost and memory stay linear in the body's length (a chunk never spans two).
_BLOCK_CHARS = 64 * 1024


def _locate(
    body: str, chunk: str, prev: tuple[int, int] | None, cursor: int
) -> tuple[int, int] | None:
    if prev is not None:
        # The chunk starts after the previous one's start and, with overlap, before its end
        # (or after the blank that follows it): the last match there, so that repetitive text
        # advances instead of matching again one period after the previous start.
        limit = prev[1]
        while limit < len(body) and body[limit].isspace():
            limit += 1
        i = body.rfind(chunk, prev[0] + 1, limit + len(chunk))
        if i >= 0:
            return i, i + len(chunk)
    i = body.find(chunk, cursor)
    if i >= 0:
        return i, i + len(chunk)
    words = chunk.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    m = re.compile(pattern).search(body, cursor)
    return (m.start(), m.end()) if m else None


def _cut(text: str, lo: int, hi: int) -> int:
    """Where to end a piece that must end in ``(lo, hi]``: the last paragraph, line, sentence or
    word boundary in its second half, else ``hi`` (unbroken text is cut)."""
    floor = lo + (hi - lo) // 2
    for sep in ("\n\n", "\n", ". ", " "):
        i = text.rfind(sep, floor, hi)
        if i >= 0:
            return i + len(sep)
    return hi


def _blocks(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    out = []
    while end - start > size:
        cut = _cut(text, start, start + size)
        out.append((start, cut))
        start = cut
    out.append((start, end))
    return out


def _capped(text: str, span: Span, *, chunk_tokens: int, max_chars: int) -> list[Span]:
    """``span`` cut into pieces of at most ``max_chars`` characters and ``chunk_tokens`` tokens."""
    out: list[Span] = []
    todo = [(span.start, span.end)]
    while todo:
        s, e = todo.pop()
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s == e:
            continue
        if e - s <= max_chars and len(token_ids(text[s:e])) <= chunk_tokens:
            out.append(Span(s, e))
            continue
        limit = min(e, s + max_chars) if e - s > max_chars else s + (e - s) // 2
        cut = _cut(text, s, limit) if limit < e else e
        cut = cut if s < cut < e else s + max(1, (e - s) // 2)
        todo.extend([(cut, e), (s, cut)])
    return out


def chunk_spans(
    text: str,
    start: int,
    end: int,
    *,
    chunk_tokens: int,
    overlap: int,
    max_chars: int = MAX_PASSAGE_CHARS,
) -> list[Span]:
    """Passages of ``text[start:end]`` as spans into ``text``.

    Args:
        text: The document's extracted text.
        start: Start of the section body.
        end: End of the section body.
        chunk_tokens: Maximum passage length in model tokens.
        overlap: Tokens shared by consecutive passages.
        max_chars: Maximum passage length in characters: text the tokenizer counts as few
            tokens (a long run without spaces, whitespace) is cut there.

    Returns:
        Spans in document order; empty when the body holds no words.
    """
    spans: list[Span] = []
    for lo, hi in _blocks(text, start, end, max(_BLOCK_CHARS, 4 * max_chars)):
        for span in _block_spans(text, lo, hi, chunk_tokens=chunk_tokens, overlap=overlap):
            for piece in _capped(text, span, chunk_tokens=chunk_tokens, max_chars=max_chars):
                if spans and piece.start <= spans[-1].start:
                    # Overlap reaching back into a piece of a cut passage: keep document order.
                    piece = Span(max(piece.start, spans[-1].end), piece.end)
                    if not text[piece.start : piece.end].strip():
                        continue
                spans.append(piece)
    return spans


def _block_spans(text: str, start: int, end: int, *, chunk_tokens: int, overlap: int) -> list[Span]:
    body = text[start:end]
    if not body.strip():
        return []
    if len(token_ids(body)) <= chunk_tokens:
        lead = len(body) - len(body.lstrip())
        return [Span(start + lead, start + len(body.rstrip()))]
    spans: list[Span] = []
    cursor = 0
    prev: tuple[int, int] | None = None
    for chunk in _splitter(chunk_tokens, overlap).split_text(body):
        chunk = chunk.strip()
        if not chunk:
            continue
        found = _locate(body, chunk, prev, cursor)
        if found is None:
            continue
        s, e = found
        spans.append(Span(start + s, start + e))
        prev = found
        cursor = s + 1
    return _fill_gaps(text, spans, start, end)


def _fill_gaps(text: str, spans: list[Span], start: int, end: int) -> list[Span]:
    """Spans in document order with any words they left out as spans of their own."""
    out: list[Span] = []
    covered = start
    for span in spans:
        if out and span.start <= out[-1].start:
            continue
        if text[covered : span.start].strip():
            out.append(Span(covered, span.start))
        out.append(span)
        covered = max(covered, span.end)
    if text[covered:end].strip():
        out.append(Span(covered, end))
    return out
