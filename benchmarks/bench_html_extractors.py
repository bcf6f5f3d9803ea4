"""HTML main-content extraction compared on real manuals: Overstory's chrome rules against
trafilatura (a maintained main-content extractor, not a dependency: ``pip install
trafilatura`` to measure; without it the benchmark says so and measures Overstory alone).

For every page of each HTML manual of the corpus suite (tuning manuals only), scored on what a
reader of the passages notices:

- ``furniture_lines``: extracted lines that are one of the manual's repeated blocks (text found
  on a fifth of its pages or more, digits masked): navigation, footers, menus left in.
- ``headings_kept``: the page's own headings (``h1``–``h6`` outside navigation) found in the
  text: what the heading tree is built from.
- ``code_kept``: ``pre`` blocks whose first line is in the text (examples, synopses).
- ``words``: the words extracted; ``empty_pages``: pages given no text at all.
- ``pages_per_second``.

Writes ``benchmarks/results/html_extractors.json``.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT
from indexer.errors import OverstoryError
from indexer.folders import FolderFile, walk_folder
from indexer.manual_site import is_html_name
from indexer.parsers.html import parse_html_tree
from indexer.parsers.html_dom import parse_dom
from indexer.parsers.html_furniture import Furniture, find_furniture
from indexer.parsers.registry import plain_bytes

RESULTS = ROOT / "benchmarks" / "results" / "html_extractors.json"
MANUALS = {
    "mpfr (Texinfo)": "/usr/share/doc/libmpfr-doc/mpfr.html",
    "ntpsec (Asciidoctor)": "/usr/share/doc/ntpsec-doc/html",
    "bind9 (Sphinx)": "/usr/share/doc/bind9-doc/arm",
    "debian-reference (DocBook)": "/usr/share/debian-reference",
    "mkdocs (MkDocs)": "/usr/share/doc/mkdocs/html",
    "doxygen (Doxygen)": "/usr/share/doc/doxygen/html",
    "joptsimple (Javadoc)": "/usr/share/doc/libjoptsimple-java/api",
}
_DIGITS = re.compile(r"\d+")
_SKIP_PARENTS = ("nav", "header", "footer", "aside")


def _norm(text: str) -> str:
    return _DIGITS.sub("#", " ".join(text.split()))


def _pages(folder: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    seen: set[Path] = set()
    for found in walk_folder(folder):
        if not isinstance(found, FolderFile) or not is_html_name(found.rel):
            continue
        if found.rel.startswith("examples/") or found.path.resolve() in seen:
            continue
        seen.add(found.path.resolve())
        out[found.rel] = plain_bytes(found.path.read_bytes(), filename=found.rel)
    return out


def _repeated(trees: list[Any]) -> set[str]:
    counts: Counter[str] = Counter()
    for root in trees:
        found = set()
        for el in root.iter("p", "li", "td", "dd", "dt", "div", "address"):
            text = _norm("".join(el.itertext()))
            if 20 <= len(text) <= 300:
                found.add(text)
        counts.update(found)
    need = max(3, math.ceil(0.2 * len(trees)))
    return {t for t, n in counts.items() if n >= need}


def _headings(root: Any) -> list[str]:
    out = []
    for h in root.iter("h1", "h2", "h3", "h4", "h5", "h6"):
        if any(p.tag in _SKIP_PARENTS for p in h.iterancestors()):
            continue
        # Sphinx and Doxygen end a heading with a permalink symbol the text leaves out.
        text = " ".join("".join(h.itertext()).split()).rstrip("¶#§ ")
        if len(text) > 3:
            out.append(text)
    return out


def _code(root: Any) -> list[str]:
    out = []
    for pre in root.iter("pre"):
        lines = [ln.strip() for ln in "".join(pre.itertext()).splitlines() if ln.strip()]
        if lines and len(lines[0]) > 3:
            out.append(" ".join(lines[0].split()))
    return out


def _score(
    name: str, extract: Callable[[str, bytes], str], pages: dict[str, bytes]
) -> dict[str, Any]:
    trees = {n: parse_dom(d, filename=n) for n, d in pages.items()}
    repeated = _repeated(list(trees.values()))
    lines = furniture = words = empty = 0
    heads = heads_kept = code = code_kept = 0
    started = time.perf_counter()
    texts = {n: extract(n, d) for n, d in pages.items()}
    seconds = time.perf_counter() - started
    for n, text in texts.items():
        flat = " ".join(text.split())
        page_lines = [_norm(ln) for ln in text.splitlines() if ln.strip()]
        lines += len(page_lines)
        furniture += sum(1 for ln in page_lines if ln in repeated)
        words += len(flat.split())
        empty += not flat
        hs, cs = _headings(trees[n]), _code(trees[n])
        heads += len(hs)
        heads_kept += sum(1 for h in hs if h in flat)
        code += len(cs)
        code_kept += sum(1 for c in cs if c in flat)
    return {
        "pages": len(pages),
        "furniture_lines": furniture,
        "furniture_share": round(furniture / lines, 4) if lines else 0.0,
        "headings_kept": round(heads_kept / heads, 3) if heads else None,
        "code_kept": round(code_kept / code, 3) if code else None,
        "words": words,
        "empty_pages": empty,
        "pages_per_second": round(len(pages) / seconds, 1) if seconds else None,
    }


def _ours(furniture: Furniture) -> Callable[[str, bytes], str]:
    def extract(name: str, data: bytes) -> str:
        try:
            return parse_html_tree(parse_dom(data, filename=name), furniture=furniture).text
        except OverstoryError:
            return ""

    return extract


def main() -> dict[str, Any]:
    """Score every available extractor on every installed manual."""
    try:
        import trafilatura
    except ImportError:
        trafilatura = None
    out: dict[str, Any] = {"benchmark": "html_extractors", "manuals": {}}
    if trafilatura is None:
        out["trafilatura"] = "not installed: pip install trafilatura"
    for label, folder in MANUALS.items():
        if not Path(folder).exists():
            continue
        pages = _pages(Path(folder))
        furniture = find_furniture([parse_dom(d, filename=n) for n, d in pages.items()])
        row = {"overstory": _score(label, _ours(furniture), pages)}
        if trafilatura is not None:

            def traf(name: str, data: bytes) -> str:
                html = data.decode("utf-8", "replace")
                found = trafilatura.extract(html, include_tables=True, include_comments=False)
                return found or ""

            row["trafilatura"] = _score(label, traf, pages)
        out["manuals"][label] = row
        print(label, json.dumps(row))
    RESULTS.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return out


if __name__ == "__main__":
    main()
