"""Hard caps: no passage is longer than the token limit or the character cap, and the cost of
parsing and chunking grows linearly with the input (pathological inputs generated here)."""

from __future__ import annotations

from typing import Any

import pytest

from indexer import tokens
from indexer.chunking import MAX_PASSAGE_CHARS
from indexer.parsers import parse_bytes
from indexer.tokens import count_tokens, token_ids
from indexer.tree import TreeNode, build_tree

CHUNK_TOKENS = 200


def _passages(data: bytes, filename: str) -> tuple[str, list[TreeNode]]:
    doc = parse_bytes(data, filename=filename)
    tree = build_tree(doc, chunk_tokens=CHUNK_TOKENS, overlap=30)
    return doc.text, tree.passages()


def _assert_capped_and_covering(text: str, passages: list[TreeNode]) -> None:
    """Every passage within both caps, in document order, together covering every word."""
    assert passages
    covered_to = 0
    previous_start = -1
    for p in passages:
        assert p.text == text[p.char_start : p.char_end]
        assert len(p.text) <= MAX_PASSAGE_CHARS, len(p.text)
        assert count_tokens(p.text) <= CHUNK_TOKENS
        assert p.char_start > previous_start
        assert not text[covered_to : p.char_start].strip(), "text between passages was dropped"
        previous_start = p.char_start
        covered_to = max(covered_to, p.char_end)
    assert not text[covered_to:].strip(), "the end of the text was dropped"


def test_a_long_line_without_spaces_is_cut_at_the_character_cap() -> None:
    data = b"x" * 2_000_000
    text, passages = _passages(data, "blob.txt")
    _assert_capped_and_covering(text, passages)
    assert sum(len(p.text or "") for p in passages) == len(data)


class _Recording:
    """The real tokenizer, recording the longest text it was asked to encode."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.longest = 0

    def encode(self, text: str, **kw: Any) -> Any:
        self.longest = max(self.longest, len(text))
        return self.real.encode(text, **kw)


def test_a_long_run_of_words_is_chunked_in_bounded_pieces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = b"lorem ipsum dolor sit amet " * 80_000  # 2.16 MB, repetitive
    recording = _Recording(tokens._tokenizer())
    monkeypatch.setattr(tokens, "_tokenizer", lambda: recording)
    text, passages = _passages(data, "words.txt")
    # Linear cost: the tokenizer is only ever given bounded pieces, never the whole run.
    assert recording.longest <= 256 * 1024
    _assert_capped_and_covering(text, passages)
    assert passages[-1].char_end == len(text.rstrip())


def test_counting_tokens_of_a_long_text_in_windows_is_exact(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    line = "The pump's M6 bolts are tightened to 9 N·m, then checked again.\n"
    text = line * 20_000  # 1.3 MB
    recording = _Recording(tokens._tokenizer())
    monkeypatch.setattr(tokens, "_tokenizer", lambda: recording)
    ids = token_ids(text)
    assert recording.longest <= 64 * 1024
    assert ids == token_ids(line) * 20_000


def test_a_deeply_nested_html_list_gives_text_linear_in_its_size() -> None:
    depth = 1_000_000 // 24
    data = ("<ul><li>item text " * depth + "x" + "</li></ul>" * depth).encode()
    doc = parse_bytes(data, filename="nested.html")
    # Indenting every level made the text (and all that follows) quadratic in the depth.
    assert len(doc.text) <= 2 * len(data)
    _, passages = _passages(data[: len(data) // 4], "nested.html")
    for p in passages:
        assert len(p.text or "") <= MAX_PASSAGE_CHARS


def test_a_deeply_nested_html_list_of_sections_and_links_keeps_every_entry() -> None:
    # Every level holds a heading and a link to it: the chrome rules read each list's links
    # and each heading's surroundings, once per element rather than once per ancestor.
    depth = 1_000_000 // 60
    data = (
        '<ul><li><h2 id="s">Part</h2><a href="#s">item</a> text ' * depth
        + "x"
        + "</li></ul>" * depth
    ).encode()
    doc = parse_bytes(data, filename="nested.html")
    assert len(doc.text) <= 2 * len(data)
    assert doc.text.count("item text") == depth


def test_a_deeply_nested_markdown_list_gives_capped_passages() -> None:
    lines, size, depth = [], 0, 0
    while size < 1_000_000:
        line = "  " * depth + f"- item {depth}\n"
        lines.append(line)
        size += len(line)
        depth += 1
    text, passages = _passages("".join(lines).encode(), "nested.md")
    _assert_capped_and_covering(text, passages)
