"""Sphinx: the toctrees, from the start page down through each page's own toctrees."""

from __future__ import annotations

from lxml import etree

from indexer.parsers.generators.base import Entry, Site
from indexer.parsers.generators.lists import list_entries
from indexer.parsers.html_dom import classes


def _toctrees(root: etree._Element) -> list[etree._Element]:
    return [el for el in root.iter("div", "nav") if "toctree-wrapper" in classes(el)]


class Sphinx:
    """The toctree: each listed page in order, the pages its own toctrees list below it.

    A toctree caption ("Appendices") labels a list, not a level: Sphinx numbers and links
    the pages below it as chapters of the manual.
    """

    name = "sphinx"
    start_sections = False

    def detect(self, site: Site) -> bool:
        meta = site.generator_meta(site.start).lower()
        root = site.pages[site.start]
        return "docutils" in meta or "sphinx" in meta or bool(_toctrees(root))

    def outline(self, site: Site) -> list[Entry]:
        placed = {site.start}
        return self._below(site, site.start, placed)

    def _below(self, site: Site, name: str, placed: set[str]) -> list[Entry]:
        out: list[Entry] = []
        for tree in _toctrees(site.pages[name]):
            for lst in tree.iter("ul", "ol"):
                if any(p.tag in ("ul", "ol") for p in lst.iterancestors() if _within(p, tree)):
                    continue
                out.extend(_fresh(list_entries(lst, site, name), placed))
        listed = [node for entry in out for node in entry.walk() if node.page is not None]
        for node in listed:
            node.children.extend(self._below(site, node.page or "", placed))
        return out


def _within(node: etree._Element, container: etree._Element) -> bool:
    return node is container or any(p is container for p in node.iterancestors())


def _fresh(entries: list[Entry], placed: set[str]) -> list[Entry]:
    """The entries whose pages are not placed yet (their children kept in their place)."""
    out: list[Entry] = []
    for entry in entries:
        children = _fresh(entry.children, placed)
        if entry.page is not None and entry.page in placed:
            out.extend(children)
            continue
        if entry.page is not None:
            placed.add(entry.page)
        entry.children = children
        out.append(entry)
    return out
