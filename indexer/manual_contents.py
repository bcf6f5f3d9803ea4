"""Pages of an HTML manual that are lists, not text: a contents page, whose list of pages is
the outline below it (Doxygen's "Modules"), and a generated index of terms, whose entries
point at the places in other pages where each term is documented (Doxygen's "Globals" and
"Data Fields", a command index)."""

from __future__ import annotations

import re
from collections.abc import Callable

from lxml import etree

from indexer.manual_links import WORD, text_before
from indexer.parsers.generators import Entry, Site
from indexer.parsers.html_chrome import PageChrome

_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# A contents page says at most in a line what its list holds ("Here is a list of all
# modules:"): a page that introduces its sections in a sentence of its own has text.
_CONTENTS_PAGE_MAX_WORDS = 25
_SENTENCE_END = re.compile(r"[^\W\d_]\S*?[.!?](?:\s|$)")
# An entry of a list of pages: its link and a brief description (a short paragraph at most).
_ENTRY_MAX_WORDS = 80
# An index entry names a term and where it is documented ("mdb_open() : lmdb.h, mdb.c").
_TERM_ENTRY_MAX_WORDS = 12
_TERM_ENTRY_TAGS = ("li", "dt", "dd")


def term_index(site: Site, name: str, chrome: PageChrome) -> str | None:
    """Why page ``name`` is a generated index of terms, or None: all it holds besides its
    headings and at most a line saying what it lists are entries each naming a term and
    linking to the place in another page of the manual where the term is documented (a link
    to a page at an anchor: a contents list links to whole pages). Doxygen's member indexes
    link only where the term is defined, after its name, so their share of link text is low."""
    body = site.pages[name].find("body")
    if body is None:
        return None
    entries: list[etree._Element] = []

    def is_entry(el: etree._Element) -> bool:
        if _is_term_entry(site, name, el):
            entries.append(el)
            return True
        return False

    own = _own_text(body, chrome, is_entry)
    if not entries or len(own.split()) > _CONTENTS_PAGE_MAX_WORDS or _SENTENCE_END.search(own):
        return None
    return (
        f"a generated index ({len(entries)} entries, each a term and links to where other "
        "pages document it): its entries point at text read elsewhere"
    )


def _is_term_entry(site: Site, name: str, el: etree._Element) -> bool:
    if el.tag not in _TERM_ENTRY_TAGS:
        return False
    links = [a.get("href") or "" for a in el.iter("a") if a.get("href")]
    if not links or len("".join(el.itertext()).split()) > _TERM_ENTRY_MAX_WORDS:
        return False
    return all("#" in href and site.resolve(name, href) not in (None, name) for href in links)


def contents_pages_as_groups(
    site: Site, outline: list[Entry], chromes: dict[str, PageChrome]
) -> dict[str, str]:
    """Turn each page of the outline that only lists the pages below it (a heading, a line
    saying what the list is, the list; Doxygen's "Modules" and "Related Pages") into a group
    titled as the page: its list is the outline, nothing of it is text. Returns the pages
    turned, with the reason."""
    found = {}
    for entry in (n for e in outline for n in e.walk()):
        if entry.page is None or not entry.children:
            continue
        name = entry.page
        body = site.pages[name].find("body")

        def lists_a_page(el: etree._Element, name: str = name) -> bool:
            return _is_entry_row(site, name, el)

        own = _own_text(body, chromes[name], lists_a_page) if body is not None else ""
        if len(own.split()) > _CONTENTS_PAGE_MAX_WORDS or _SENTENCE_END.search(own):
            continue
        found[entry.page] = "a contents page: its list of pages is the outline below it"
        entry.title = entry.title or _page_heading(site.pages[entry.page])
        entry.page = None
    return found


def _is_entry_row(site: Site, name: str, el: etree._Element) -> bool:
    """Whether ``el`` is an entry of a list of pages: an item or table row opened by a link
    to another page of the manual, and at most a line describing it (Doxygen's and
    Javadoc's brief descriptions, which the page itself opens with)."""
    if el.tag not in ("li", "dt", "dd", "tr"):
        return False
    first = next((a for a in el.iter("a") if a.get("href")), None)
    if first is None or site.resolve(name, first.get("href")) in (None, name):
        return False
    if WORD.search(text_before(el, first)):
        return False
    return len("".join(el.itertext()).split()) <= _ENTRY_MAX_WORDS


def _own_text(
    body: etree._Element, chrome: PageChrome, entry: Callable[[etree._Element], bool]
) -> str:
    """The page's text outside its headings, chrome and entries listing pages, on one line."""
    parts: list[str] = []

    def walk(el: etree._Element) -> None:
        if not isinstance(el.tag, str) or el.tag in ("script", "style") or chrome.skips(el):
            return
        if entry(el):
            return
        if el.tag not in _HEADING_TAGS:
            parts.append(el.text or "")
            for child in el:
                walk(child)
                parts.append(child.tail or "")

    walk(body)
    return " ".join("".join(parts).split())


def _page_heading(root: etree._Element) -> str:
    """The page's first heading, else its ``<title>``."""
    heading = next(root.iter(*_HEADING_TAGS), None)
    found = heading if heading is not None else root.find(".//title")
    return " ".join("".join(found.itertext()).split()) if found is not None else ""
