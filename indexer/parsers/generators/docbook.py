"""DocBook XSL chunked HTML (PostgreSQL, Debian Reference, GTK-Doc): chunks naming their
``up`` chunk (``accesskey="u"``) and listed in their parent's contents."""

from __future__ import annotations

from indexer.parsers.generators.base import Entry, Site
from indexer.parsers.generators.uplinks import up_outline


class DocBook:
    """DocBook's chunk tree, from the chunks' ``up`` links in their parent's contents order."""

    name = "docbook"
    start_sections = True

    def detect(self, site: Site) -> bool:
        meta = site.generator_meta(site.start).lower()
        return "docbook" in meta or "gtk-doc" in meta

    def outline(self, site: Site) -> list[Entry]:
        return up_outline(site)
