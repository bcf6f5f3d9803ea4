"""Checks a reader makes on HTML manuals of many pages, one or more per generator
(``make test-corpus``; see conftest.py): every page read or reported, the chapters in the
manual's own order, no furniture in passages, and four questions answered in the top three."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from indexer.folders import FolderFile, walk_folder
from indexer.manual_site import is_html_name
from indexer.parsers.html_dom import parse_dom
from indexer.parsers.registry import plain_bytes
from indexer.sources import read_html_manual
from tests.corpus.conftest import Corpus
from tests.corpus.manuals import MANUALS, CorpusManual
from tests.corpus.test_corpus import QUESTIONS, _passages, _query, _record, _toc_like, _tree
from tests.helpers import walk

SITES = [m for m in MANUALS if m.generator is not None]
_DIGITS = re.compile(r"\d+")
_SCAN_TAGS = ("p", "li", "td", "dd", "dt", "div", "address")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _html_files(m: CorpusManual) -> list[Path]:
    """The manual's HTML files, each once (a link to a page is the page)."""
    root = Path(m.paths[0])
    if root.is_file():
        return [root]
    seen: dict[Path, Path] = {}
    for found in walk_folder(root):
        if isinstance(found, FolderFile) and is_html_name(found.rel):
            seen.setdefault(found.path.resolve(), found.path)
    return list(seen.values())


def _norm(text: str) -> str:
    return _DIGITS.sub("#", " ".join(text.split()))


def _pages(files: list[Path]) -> list[etree._Element]:
    found = []
    for path in files:
        try:
            root = parse_dom(plain_bytes(path.read_bytes(), filename=path.name), filename="x")
        except Exception:  # a page the reader refuses is reported; the scan skips it too
            continue
        body = root.find("body")
        if body is not None:
            found.append(body)
    return found


def _scan_blocks(body: etree._Element) -> list[tuple[etree._Element, str]]:
    """The page's text blocks of 20 to 300 characters (digits masked), code and blocks
    holding a heading left out: a manual repeats an example or a section name on purpose."""
    found = []
    for el in body.iter(*_SCAN_TAGS):
        if any(p.tag == "pre" for p in el.iterancestors()) or el.find(".//pre") is not None:
            continue
        if next(el.iter(*_HEADINGS), None) is not None:
            continue
        text = _norm("".join(el.itertext()))
        if 20 <= len(text) <= 300:
            found.append((el, text))
    return found


def _made_of_links(el: etree._Element) -> bool:
    links = [a for a in el.iter("a") if a.get("href")]
    if not links or any("://" in (a.get("href") or "") for a in links):
        return False
    letters = len(re.sub(r"\W", "", "".join(el.itertext())))
    linked = sum(len(re.sub(r"\W", "", "".join(a.itertext()))) for a in links)
    return letters > 0 and linked >= 0.5 * letters


def _furniture_blocks(files: list[Path]) -> set[str]:
    """The manual's furniture by the rule its docs state (docs/html-manuals.md), scanned from
    its HTML files: a block whose text is on a quarter of the pages (three or more) that
    stands at a page's edge (before its first heading, or after the last text of the page
    that is neither repeated nor links) on most pages carrying it, or that is made mostly of
    links into the manual. The same block between a page's own paragraphs is its text."""
    bodies = _pages(files)
    blocks = {id(b): _scan_blocks(b) for b in bodies}
    counts: Counter[str] = Counter()
    for body in bodies:
        counts.update({text for _, text in blocks[id(body)]})
    need = max(3, math.ceil(0.25 * len(bodies)))
    repeated = {t for t, n in counts.items() if n >= need}
    edge: Counter[str] = Counter()
    for body in bodies:
        order: dict[int, int] = {}
        not_own: set[int] = set()
        for el, text in blocks[id(body)]:
            if text in repeated or _made_of_links(el):
                not_own.update(id(d) for d in el.iter())
        start = end = None
        for at, el in enumerate(e for e in body.iter() if isinstance(e.tag, str)):
            order[id(el)] = at
            if el.tag in _HEADINGS and start is None:
                start = at
            own = (el.text or "").strip() or any((c.tail or "").strip() for c in el)
            if own and id(el) not in not_own and el.tag not in ("script", "style"):
                end = at
        for el, text in blocks[id(body)]:
            if text not in repeated:
                continue
            first = order[id(el)]
            last = max(order.get(id(d), first) for d in el.iter())
            if start is None or end is None or last < start or first > end or _made_of_links(el):
                edge[text] += 1
    return {t for t in repeated if edge[t] * 2 >= counts[t]}


def _holds(text: str, block: str) -> bool:
    """Whether the passage holds the block whole (not a longer line that starts with it)."""
    return re.search(rf"(?<![\w.]){re.escape(block)}(?![\w.])", text) is not None


@pytest.mark.parametrize("m", SITES, ids=[m.name for m in SITES])
def test_every_page_is_read_or_reported(corpus: Corpus, m: CorpusManual) -> None:
    files = _html_files(m)
    found = read_html_manual([Path(p) for p in m.paths])
    assert found is not None
    reading, _ = found
    pages = [p for p in reading.pages if p.data]
    html_refused = [n for n, _ in reading.refused if is_html_name(n)]
    _record(corpus, m, "generator", reading.generator)
    _record(corpus, m, "html_files", len(files))
    _record(corpus, m, "pages_read", len(pages))
    _record(corpus, m, "pages_reported", len(html_refused))
    _record(corpus, m, "reported", dict(Counter(r.split(" (")[0] for _, r in reading.refused)))
    assert reading.generator == m.generator
    if Path(m.paths[0]).is_dir():
        assert len(pages) + len(html_refused) == len(files)
    assert len({p.name for p in pages}) == len(pages)  # no page read twice
    skipped = corpus.built[m.name]["skipped"]
    assert len(skipped) == len(reading.refused) + len(found[1])


@pytest.mark.parametrize("m", SITES, ids=[m.name for m in SITES])
def test_furniture_passages_are_at_most_one_percent(corpus: Corpus, m: CorpusManual) -> None:
    tree = _tree(corpus, m)
    passages = _passages(tree)
    headings = {n["title"] for n in walk(tree) if n["level"] not in ("passage", "cluster")}
    # a block that is a heading's text (a link to a page, by its title) cannot be told from
    # the heading inside a passage
    repeated = _furniture_blocks(_html_files(m)) - {_norm(h) for h in headings}
    furniture = []
    for p in passages:
        text = _norm(p["text"])
        if (
            any(_holds(text, block) for block in repeated)
            or (m.furniture is not None and m.furniture.search(p["text"]))
            or _toc_like(p["text"], headings)
        ):
            furniture.append(p["text"][:100])
    share = len(furniture) / len(passages) if passages else 0.0
    _record(corpus, m, "repeated_blocks_scanned", len(repeated))
    _record(corpus, m, "furniture_passages", len(furniture))
    _record(corpus, m, "furniture_share", round(share, 4))
    _record(corpus, m, "furniture_examples", furniture[:5])
    assert share <= 0.01, furniture[:10]


@pytest.mark.parametrize("m", SITES, ids=[m.name for m in SITES])
def test_four_questions_answered_in_the_top_three(corpus: Corpus, m: CorpusManual) -> None:
    questions = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line]
    mine = [q for q in questions if q["manual"] == m.name]
    ranks: dict[str, int | None] = {}
    for q in mine:
        results = _query(corpus, q["question"], m.doc_id, 5)
        ranks[q["id"]] = _rank(results, q["gold"])
    _record(corpus, m, "question_ranks", ranks)
    assert len(mine) >= 4
    assert all(r is not None and r <= 3 for r in ranks.values()), ranks


def _rank(results: list[dict[str, Any]], gold: list[str]) -> int | None:
    wanted = [g.casefold() for g in gold]
    for r in results:
        for heading in r["heading_path"]:
            h = heading.casefold().strip()
            if any(h == g or h.endswith(g) or h.startswith(g) for g in wanted):
                return int(r["rank"])
    return None
