"""MkDocs: every page carries the whole site's navigation; the start page's is the outline."""

from __future__ import annotations

import posixpath

from indexer.parsers.generators.base import Entry, Site
from indexer.parsers.generators.contents_page import distinct_pages, largest_list, site_map_list
from indexer.parsers.html_chrome import PageChrome


class MkDocs:
    """The navigation menu (sections as groups), from the start page; or the site map page
    when that lists more of the manual's pages (a theme without a menu)."""

    name = "mkdocs"
    start_sections = True

    def detect(self, site: Site) -> bool:
        head = site.raw.get(site.start, b"")
        # MkDocs' own themes write no generator meta; their search script is their mark.
        return "mkdocs" in site.generator_meta(site.start).lower() or b"search/main.js" in head

    def outline(self, site: Site) -> list[Entry]:
        menu = largest_list(site, site.start)
        # a theme that carries no menu on its pages has the site map page MkDocs writes
        mapped = site_map_list(site, more_than=len(distinct_pages(menu)))
        if mapped:
            return _folder_sections(site, mapped)
        out: list[Entry] = []
        for entry in menu:
            if entry.page is None and any(c.page == site.start for c in entry.children):
                # the section holding the start page is the manual itself (its label the
                # project's name, the menu holding other projects' sites): its pages are
                # the chapters
                out.extend(entry.children)
                continue
            out.append(entry)
        return _folder_sections(site, out)


def _folder_sections(site: Site, entries: list[Entry]) -> list[Entry]:
    """Nest under a folder's index page (``change_log/index.html``) the entries listed right
    after it whose pages all lie in its folder and which its text links to: MkDocs makes a
    folder's ``index.md`` the page of the folder's section, though a flat ``nav`` (or a site
    map) lists the pages beside it. An entry its text does not cite stays beside it, and so
    does a labelled section of the ``nav`` (the author's own level, not the folder's) and
    every entry after it."""
    out: list[Entry] = []
    for entry in entries:
        entry.children = _folder_sections(site, entry.children)
        head = out[-1] if out else None
        if head is not None and _heads(site, head, entry):
            head.children.append(entry)
        else:
            out.append(entry)
    return out


def _heads(site: Site, head: Entry, entry: Entry) -> bool:
    if entry.page is None or head.page is None or posixpath.basename(head.page) != "index.html":
        return False
    folder = posixpath.dirname(head.page)
    pages = {n.page for n in entry.walk() if n.page is not None}
    if not folder or not pages or not all(p.startswith(f"{folder}/") for p in pages):
        return False
    root = site.pages[head.page]
    chrome = PageChrome(root, name=head.page)
    cited = {
        site.resolve(head.page, a.get("href"))
        for a in root.iter("a")
        if not chrome.skips(a) and not any(chrome.skips(p) for p in a.iterancestors())
    }
    return bool(pages & cited)
