"""Fuzzing the parsers: real Markdown, HTML and PDF inputs, mutated, must parse or be refused.

Shared by the short run in the test suite (``tests/test_fuzz_parsers.py``) and the long one
(``make fuzz``, ``benchmarks/bench_fuzz_parsers.py``). Each input is a real document with a few
byte-level mutations (cut, duplicate, delete, insert format tokens or random bytes, truncate).
What holds for every input: only Overstory's own errors escape the parser, and every span of the
result lies inside the text, nested in its parent, so that it still slices the text.
"""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from indexer.errors import OverstoryError
from indexer.parsers import ParsedDocument, parse_bytes
from tests.helpers import ROOT

FIXTURES = ROOT / "fixtures"
FILENAMES = {"markdown": "fuzz.md", "html": "fuzz.html", "pdf": "fuzz.pdf"}
# Tokens that steer a mutation into the format's grammar rather than only into noise.
TOKENS = {
    "markdown": [b"#", b"## ", b"\n", b"```", b"~~~", b"- ", b"1. ", b"|", b"> ", b"<div>", b"*",
                 b"[x](", b"\t", b"    ", b"---\n", b"\r", b"<!--", b"\\"],
    "html": [b"<", b">", b"</", b"<h1>", b"<h2>", b"</h2>", b"<table>", b"<td>", b"<ul><li>",
             b"<script>", b"<!--", b"-->", b"&amp;", b"&#0;", b"<pre>", b"<br/>", b"<![CDATA["],
    "pdf": [b"obj", b"endobj", b"stream", b"endstream", b"<<", b">>", b"/Type", b"/Page", b"xref",
            b"trailer", b"%%EOF", b"0 0 R", b"/Length 999999", b"(", b")", b"\\", b"/Outlines"],
}  # fmt: skip


@cache
def seed(fmt: str) -> bytes:
    """The real document a format's inputs are mutated from (small: many inputs per minute)."""
    if fmt == "markdown":
        return (FIXTURES / "pump-x200.md").read_bytes()[:6000]
    if fmt == "html":
        return (FIXTURES / "netgate-ng40.html").read_bytes()[:9000]
    from tests.pdfgen import build_pdf

    text = (FIXTURES / "pump-x200.md").read_text(encoding="utf-8")[:2500]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "seed.pdf"
        build_pdf(text, path)
        return path.read_bytes()


def mutations(fmt: str) -> st.SearchStrategy[bytes]:
    """Mutated copies of the format's seed."""
    base = seed(fmt)
    position = st.integers(min_value=0, max_value=len(base))
    insert = st.one_of(st.sampled_from(TOKENS[fmt]), st.binary(min_size=1, max_size=64))
    op = st.one_of(
        st.tuples(st.just("insert"), position, insert, st.integers(1, 50)),
        st.tuples(st.just("delete"), position, st.integers(1, 2000)),
        st.tuples(st.just("duplicate"), position, st.integers(1, 2000), st.integers(1, 20)),
        st.tuples(st.just("flip"), position, st.integers(1, 255)),
        st.tuples(st.just("truncate"), position),
    )
    return st.lists(op, min_size=1, max_size=6).map(lambda ops: _apply(base, ops))


def _apply(data: bytes, ops: list[tuple[Any, ...]]) -> bytes:
    out = bytearray(data)
    for kind, at, *args in ops:
        i = min(at, len(out))
        if kind == "insert":
            token, times = args
            out[i:i] = token * times
        elif kind == "delete":
            del out[i : i + args[0]]
        elif kind == "duplicate":
            length, times = args
            out[i:i] = bytes(out[i : i + length]) * times
        elif kind == "flip" and i < len(out):
            out[i] ^= args[0]
        elif kind == "truncate":
            del out[i:]
    return bytes(out)


def check_parse(data: bytes, fmt: str) -> str:
    """Parse one input: ``"parsed"`` or ``"refused"`` (an Overstory error); anything else raises.

    Raises:
        AssertionError: A span of the result does not slice the text.
    """
    try:
        doc = parse_bytes(data, filename=FILENAMES[fmt])
    except OverstoryError:
        return "refused"
    check_spans(doc)
    return "parsed"


def check_spans(doc: ParsedDocument) -> None:
    """Every section inside its parent and the text; pages in order, inside the text."""
    n = len(doc.text)
    stack = [(doc.root, 0, n)]
    while stack:
        node, low, high = stack.pop()
        assert low <= node.char_start <= node.body_start <= node.body_end <= node.char_end, node
        assert node.char_end <= high, (node.title, node.char_end, high)
        previous_end = node.body_start
        for child in node.children:
            assert child.char_start >= previous_end, (child.title, child.char_start)
            previous_end = child.char_end
            stack.append((child, node.char_start, node.char_end))
    if doc.page_starts is not None:
        assert doc.page_starts == sorted(doc.page_starts)
        assert all(0 <= s <= n for s in doc.page_starts)
