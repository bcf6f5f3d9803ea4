"""MkDocs: every page carries the whole site's navigation; the start page's is the outline."""

from __future__ import annotations

from indexer.parsers.generators.base import Entry, Site
from indexer.parsers.generators.contents_page import largest_list


class MkDocs:
    """The navigation menu (sections as groups), from the start page."""

    name = "mkdocs"
    start_sections = True

    def detect(self, site: Site) -> bool:
        head = site.raw.get(site.start, b"")
        # MkDocs' own themes write no generator meta; their search script is their mark.
        return "mkdocs" in site.generator_meta(site.start).lower() or b"search/main.js" in head

    def outline(self, site: Site) -> list[Entry]:
        out: list[Entry] = []
        for entry in largest_list(site, site.start):
            if entry.page == site.start:
                continue
            if entry.page is None and any(c.page == site.start for c in entry.children):
                # the section holding the start page is the manual itself (its label the
                # project's name, the menu holding other projects' sites): its pages are
                # the chapters
                out.extend(c for c in entry.children if c.page != site.start)
                continue
            out.append(entry)
        return out
