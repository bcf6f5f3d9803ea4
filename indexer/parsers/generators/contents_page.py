"""An outline from the manual's largest list of its own pages: a site map page, or the
navigation menu every page carries.

What Asciidoctor and AsciiDoc sites (NTPsec's "Site Map"), MkDocs (the nav bar) and unknown
generators have instead of a generated table of contents. Headings above the lists group
their pages ("Build and Install", "Manual Pages"); a single heading over all of them (the
page's own title) is no group.
"""

from __future__ import annotations

from collections.abc import Callable

from indexer.parsers.generators.base import Entry, Site
from indexer.parsers.generators.lists import list_entries

_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_LISTS = ("ul", "ol", "dl")


def distinct_pages(entries: list[Entry]) -> set[str]:
    """The pages an outline reaches."""
    return {n.page for e in entries for n in e.walk() if n.page is not None}


def largest_list(site: Site, name: str) -> list[Entry]:
    """The entries of the page's list (with its nested lists) that reaches the most pages."""
    best: list[Entry] = []
    for lst in site.pages[name].iter(*_LISTS):
        if any(p.tag in _LISTS for p in lst.iterancestors()):
            continue
        entries = list_entries(lst, site, name)
        if len(distinct_pages(entries)) > len(distinct_pages(best)):
            best = entries
    return best


def page_outline(site: Site, name: str) -> list[Entry]:
    """Every list of links on the page, grouped under the headings above them."""
    root = site.pages[name]
    body = root.find("body")
    top: list[Entry] = []
    open_groups: list[tuple[int, Entry]] = []
    stack = list(reversed(body)) if body is not None else []
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str):
            continue
        if el.tag in _HEADINGS:
            level = _HEADINGS[el.tag]
            while open_groups and open_groups[-1][0] >= level:
                open_groups.pop()
            group = Entry(" ".join("".join(el.itertext()).split()), None)
            (open_groups[-1][1].children if open_groups else top).append(group)
            open_groups.append((level, group))
        elif el.tag in _LISTS:
            entries = list_entries(el, site, name)
            (open_groups[-1][1].children if open_groups else top).extend(entries)
        else:
            stack.extend(reversed(el))
    return _unwrap(_prune(top))


def _prune(entries: list[Entry]) -> list[Entry]:
    out = []
    for entry in entries:
        entry.children = _prune(entry.children)
        if entry.page is not None or entry.children:
            out.append(entry)
    return out


def _unwrap(entries: list[Entry]) -> list[Entry]:
    while len(entries) == 1 and entries[0].page is None:
        entries = entries[0].children
    return entries


def site_map(site: Site, *, min_share: float = 0.25) -> list[Entry]:
    """The outline of the page (the start page excepted) that lists the most of the manual's
    pages, when it lists at least ``min_share`` of them; else []."""
    best, best_name = _richest_page(site, page_outline)
    if len(distinct_pages(best)) < min_share * len(site.pages):
        return []
    site.contents_pages.add(best_name)
    return best


def site_map_list(site: Site, *, more_than: int) -> list[Entry]:
    """The largest list of pages on a page other than the start page (a site map), when it
    reaches more than ``more_than`` pages; else []. The page is the outline's source."""
    best, best_name = _richest_page(site, largest_list)
    if len(distinct_pages(best)) <= more_than:
        return []
    site.contents_pages.add(best_name)
    return best


def _richest_page(site: Site, read: Callable[[Site, str], list[Entry]]) -> tuple[list[Entry], str]:
    """Of the pages other than the start page, the entries ``read`` finds on the one whose
    entries reach the most pages, and its name."""
    best: list[Entry] = []
    best_name = ""
    for name in site.pages:
        if name == site.start:
            continue
        entries = read(site, name)
        if len(distinct_pages(entries)) > len(distinct_pages(best)):
            best, best_name = entries, name
    return best, best_name
