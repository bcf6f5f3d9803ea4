"""Asciidoctor and AsciiDoc: pages with no generated cross-page contents; the manual's own
site map page, when it has one, is its outline."""

from __future__ import annotations

from indexer.parsers.generators.base import Entry, Site
from indexer.parsers.generators.contents_page import site_map


class AsciiDoc:
    """A site map page's lists under its headings (NTPsec's "Site Map")."""

    name = "asciidoc"
    start_sections = True

    def detect(self, site: Site) -> bool:
        meta = site.generator_meta(site.start).lower()
        return "asciidoc" in meta  # Asciidoctor and AsciiDoc alike

    def outline(self, site: Site) -> list[Entry]:
        return site_map(site)
