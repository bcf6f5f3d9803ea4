"""MkDocs: every page carries the whole site's navigation; the start page's is the outline."""

from __future__ import annotations

from indexer.parsers.generators.base import Entry, Site
from indexer.parsers.generators.contents_page import largest_list


class MkDocs:
    """The navigation menu (sections as groups), from the start page."""

    name = "mkdocs"

    def detect(self, site: Site) -> bool:
        head = site.raw.get(site.start, b"")
        # MkDocs' own themes write no generator meta; their search script is their mark.
        return "mkdocs" in site.generator_meta(site.start).lower() or b"search/main.js" in head

    def outline(self, site: Site) -> list[Entry]:
        return [e for e in largest_list(site, site.start) if e.page != site.start]
