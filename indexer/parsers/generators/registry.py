"""The known generators, tried in order; a generic reader for the rest."""

from __future__ import annotations

from indexer.parsers.generators.asciidoc import AsciiDoc
from indexer.parsers.generators.base import Entry, Generator, Site
from indexer.parsers.generators.contents_page import largest_list, site_map
from indexer.parsers.generators.docbook import DocBook
from indexer.parsers.generators.doxygen import Doxygen
from indexer.parsers.generators.javadoc import Javadoc
from indexer.parsers.generators.mkdocs import MkDocs
from indexer.parsers.generators.sphinx import Sphinx
from indexer.parsers.generators.texinfo import Texinfo
from indexer.parsers.generators.uplinks import up_href, up_outline


class Generic:
    """A manual of no known generator: its pages' ``up`` links if they have them, else a site
    map page, else the start page's largest list of pages."""

    name = "generic"
    start_sections = True

    def detect(self, site: Site) -> bool:
        return True

    def outline(self, site: Site) -> list[Entry]:
        if any(up_href(root) is not None for root in site.pages.values()):
            return up_outline(site)
        return site_map(site) or [e for e in largest_list(site, site.start) if e.page]


GENERATORS: tuple[Generator, ...] = (
    Texinfo(),
    DocBook(),
    Sphinx(),
    MkDocs(),
    Doxygen(),
    Javadoc(),
    AsciiDoc(),
)


def detect(site: Site) -> Generator:
    """The generator that wrote the site's start page, or :class:`Generic`."""
    for generator in GENERATORS:
        if generator.detect(site):
            return generator
    return Generic()
