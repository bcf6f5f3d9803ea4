"""Where a manual's start page stops being front matter: at the first of its sections that
its own table of contents lists.

NTPsec's start page opens with "1. Related Links" (a sentence pointing at the site map) and
"2. Table of Contents", whose list names "Introduction" and the sections after it: the
sections before the first one the page's contents list names are its front matter, not
chapters. A contents list that starts at the first section (Asciidoctor's, Texinfo's) changes
nothing.
"""

from __future__ import annotations

from lxml import etree

from indexer.parsers.html_chrome import PageChrome

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_LISTS = ("ul", "ol")


def first_listed_section(root: etree._Element, chrome: PageChrome) -> str | None:
    """The heading text of the first section the page's own contents list names, when
    sections other than the page's title come before it; else None.

    The contents list is the page's first list that is chrome (a contents list) whose links
    all lead to anchors of the page's headings.
    """
    headings = [h for h in root.iter(*_HEADINGS) if not _in_chrome(h, chrome)]
    targets = _heading_anchors(root)
    for lst in root.iter(*_LISTS):
        if not _in_chrome(lst, chrome):
            continue
        links = [a.get("href") or "" for a in lst.iter("a") if a.get("href") is not None]
        if len(links) < 2 or not all(h.startswith("#") and h[1:] in targets for h in links):
            continue
        first = targets[links[0][1:]]
        # the page's title heading is no section: only sections before the first one
        # listed make front matter
        before = headings[1 : headings.index(first)] if first in headings else []
        return _title(first) if before else None
    return None


def _heading_anchors(root: etree._Element) -> dict[str, etree._Element]:
    """Anchors of the page naming a heading: the heading's own id, or an anchor inside it."""
    found: dict[str, etree._Element] = {}
    for h in root.iter(*_HEADINGS):
        for el in h.iter():
            key = el.get("id") or (el.get("name") if el.tag == "a" else None)
            if key:
                found.setdefault(key, h)
    return found


def _in_chrome(el: etree._Element, chrome: PageChrome) -> bool:
    return chrome.skips(el) or any(chrome.skips(p) for p in el.iterancestors())


def _title(heading: etree._Element) -> str:
    return " ".join("".join(heading.itertext()).split())
