"""GNU Texinfo (``makeinfo --html``): one page per node, each naming its ``Up`` node."""

from __future__ import annotations

from indexer.parsers.generators.base import Entry, Site
from indexer.parsers.generators.uplinks import up_outline


class Texinfo:
    """Texinfo's node tree, from the nodes' ``Up`` links in their menus' order."""

    name = "texinfo"
    start_sections = True

    def detect(self, site: Site) -> bool:
        head = site.raw.get(site.start, b"")
        meta = site.generator_meta(site.start).lower()
        return b"GNU Texinfo" in head or "makeinfo" in meta or "texi2any" in meta

    def outline(self, site: Site) -> list[Entry]:
        return up_outline(site)
