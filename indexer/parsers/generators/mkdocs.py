"""MkDocs: every page carries the whole site's navigation; the start page's is the outline."""

from __future__ import annotations

from indexer.parsers.generators.base import Entry, Site
from indexer.parsers.generators.contents_page import distinct_pages, largest_list, site_map_list


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
            return mapped
        out: list[Entry] = []
        for entry in menu:
            if entry.page is None and any(c.page == site.start for c in entry.children):
                # the section holding the start page is the manual itself (its label the
                # project's name, the menu holding other projects' sites): its pages are
                # the chapters
                out.extend(entry.children)
                continue
            out.append(entry)
        return out
