"""Where a page the manual's outline misses goes: under the first page, in reading order, whose
contents list it (a module index, a package's classes), then, when a folder was given, under
the first page whose sentence cites it; and which pages only the navigation bars reach.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lxml import etree

from indexer.parsers.generators import Entry, Site
from indexer.parsers.html_chrome import PageChrome

_ITEM_TAGS = ("li", "dt", "dd", "td", "th")
WORD = re.compile(r"[^\W\d_]{2,}")  # a word, not a number, bullet or icon letter


def _content_links(
    site: Site, name: str, chrome: PageChrome, *, listed_only: bool = False
) -> Iterator[str]:
    """The pages the page's text links to, in order (chrome's links left out); with
    ``listed_only``, only the links that are entries of a list or table (see
    :func:`_is_listed`)."""
    root = site.pages[name]
    stack = [root]
    while stack:
        el = stack.pop()
        # a row listing pages is no text, yet its links are how the manual reaches them
        if not isinstance(el.tag, str) or (chrome.skips(el) and not chrome.is_row(el)):
            continue
        if el.tag == "a" or el.tag in ("frame", "iframe"):
            target = site.resolve(name, el.get("href") or el.get("src"))
            if target is not None and (not listed_only or el.tag != "a" or _is_listed(el)):
                yield target
        stack.extend(reversed(el))


def _is_listed(a: etree._Element) -> bool:
    """Whether the link is an entry of a list or table: no word before it in its item (or
    cell), as a contents entry names its page first (after a number, a bullet, a folding
    arrow or an icon's letter at most); a link further on is a cross-reference."""
    item = next((p for p in a.iterancestors() if p.tag in _ITEM_TAGS), None)
    return item is not None and not WORD.search(text_before(item, a))


def text_before(item: etree._Element, a: etree._Element) -> str:
    """The text of ``item`` before the link ``a`` in it."""
    parts: list[str] = []

    def walk(el: etree._Element) -> bool:
        if el is a:
            return True
        if isinstance(el.tag, str):
            parts.append(el.text or "")
        for child in el:
            if walk(child):
                return True
            parts.append(child.tail or "")
        return False

    walk(item)
    return "".join(parts)


def place_linked(
    site: Site, outline: list[Entry], chromes: dict[str, PageChrome], *, skip: set[str]
) -> None:
    """Nest each page the outline misses under the first page, in reading order, linking it:
    first where a list or table of pages names it (a module index, a package's classes),
    then, when a folder was given, where a sentence refers to it (a cross-reference from an
    earlier page)."""
    front = Entry("", site.start, outline)
    placed = {n.page for n in front.walk() if n.page is not None} | skip
    # given a start page, the manual is what its contents reach: a page only a sentence
    # cites is another document (a user's guide beside its FAQ)
    for listed_only in (True, False) if site.report_unreached else (True,):
        queue = [n for n in front.walk() if n.page is not None]
        while queue:
            entry = queue.pop(0)
            name = entry.page or ""
            links = _content_links(site, name, chromes[name], listed_only=listed_only)
            for target in links:
                if target in placed:
                    continue
                placed.add(target)
                child = Entry("", target)
                (outline if entry is front else entry.children).append(child)
                queue.append(child)


def linked_from_chrome(site: Site, placed: set[str], chromes: dict[str, PageChrome]) -> set[str]:
    """Every page a link of the placed pages leads to, navigation bars included."""
    found: set[str] = set()
    for name in placed:
        for a in site.pages[name].iter("a"):
            target = site.resolve(name, a.get("href"))
            if target is not None:
                found.add(target)
    return found
