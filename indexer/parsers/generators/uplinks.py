"""An outline from the pages' own ``up`` links (Texinfo nodes, DocBook chunks).

Each page names its parent (``rel="up"`` or ``accesskey="u"``); a parent's children go in the
order the parent first links to them (its menu or contents list). Texinfo's ``next`` leads to
the next node at the same level, not the next page to read, so it is no reading order.
"""

from __future__ import annotations

from lxml import etree

from indexer.parsers.generators.base import Entry, Site


def up_href(root: etree._Element) -> str | None:
    """The page's ``up`` link, if it has one."""
    for el in root.iter("a", "link"):
        rel = (el.get("rel") or "").lower().split()
        if "up" in rel or (el.get("accesskey") or "").lower() == "u":
            return el.get("href")
    return None


def up_outline(site: Site) -> list[Entry]:
    """The pages below the start page along their ``up`` links (see the module docstring)."""
    children: dict[str, list[str]] = {}
    for name, root in site.pages.items():
        if name == site.start:
            continue
        href = up_href(root)
        if href is None:
            continue
        parent = site.resolve(name, href) or site.start
        if parent != name:
            children.setdefault(parent, []).append(name)
    placed = {site.start}
    chain = _next_chain(site)

    def below(name: str) -> list[Entry]:
        order = _link_order(site, name)
        kids = sorted(
            children.get(name, []),
            key=lambda k: (chain.get(k, len(chain)), order.get(k, len(order)), k),
        )
        out = []
        for kid in kids:
            if kid in placed:
                continue
            placed.add(kid)
            out.append(Entry("", kid, below(kid)))
        return out

    return below(site.start)


def _next_href(root: etree._Element) -> str | None:
    for el in root.iter("a", "link"):
        rel = (el.get("rel") or "").lower().split()
        if "next" in rel or (el.get("accesskey") or "").lower() == "n":
            return el.get("href")
    return None


def _next_chain(site: Site) -> dict[str, int]:
    """Each page's place along the ``next`` links from the start page (DocBook's reading
    order; in Texinfo only the top-level nodes, its ``next`` staying at one level)."""
    chain: dict[str, int] = {}
    name: str | None = site.start
    while name is not None and name not in chain:
        chain[name] = len(chain)
        name = site.resolve(name, _next_href(site.pages[name]))
    return chain


def _link_order(site: Site, name: str) -> dict[str, int]:
    order: dict[str, int] = {}
    for a in site.pages[name].iter("a"):
        target = site.resolve(name, a.get("href"))
        if target is not None and target not in order:
            order[target] = len(order)
    return order
