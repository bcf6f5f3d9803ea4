"""Reading a nested list of links (a toctree, a contents list, a navigation menu) as entries."""

from __future__ import annotations

from lxml import etree

from indexer.parsers.generators.base import Entry, Site, link_text

_LISTS = ("ul", "ol", "dl")


def list_entries(lst: etree._Element, site: Site, base: str) -> list[Entry]:
    """The entries of a ``ul``/``ol``/``dl`` of page ``base``: each item's first link to a page
    of the manual, its nested lists below it. An item without such a link (a menu section's
    label) is a group holding its nested entries; links to a page already listed (its own
    sections' anchors) add nothing."""
    seen: set[str] = set()
    return _entries(lst, site, base, seen)


def _entries(lst: etree._Element, site: Site, base: str, seen: set[str]) -> list[Entry]:
    out: list[Entry] = []
    items = [c for c in lst if isinstance(c.tag, str) and c.tag in ("li", "dt", "dd")]
    for item in items:
        if item.tag == "dd":
            # DocBook: a dt's nested entries are in the dd that follows it.
            parent = out[-1].children if out else out
            for nested in _nested_lists(item):
                parent.extend(_entries(nested, site, base, seen))
            continue
        entry = _item_entry(item, site, base, seen)
        for nested in _nested_lists(item):
            if entry is not None and entry.page is not None:
                entry.lists_sections |= _links_anchors_of(nested, site, base, entry.page)
            children = _entries(nested, site, base, seen)
            (entry.children if entry is not None else out).extend(children)
        if entry is not None and (entry.page is not None or entry.children):
            out.append(entry)
    return out


def _item_entry(item: etree._Element, site: Site, base: str, seen: set[str]) -> Entry | None:
    for a in _own_links(item):
        href = a.get("href") or ""
        page = site.resolve(base, href)
        if page is not None:
            if page in seen:
                return None  # an anchor of a page already listed: its section, not a page
            seen.add(page)
            return Entry(link_text(a), page)
        if href.strip() in ("", "#"):
            return Entry(link_text(a), None)  # a menu's section label written as a link
        return None
    label = _own_text(item)
    return Entry(label, None) if label else None


def _links_anchors_of(lst: etree._Element, site: Site, base: str, page: str) -> bool:
    """Whether the list links to a section of ``page`` (``page.html#id``, or ``#id`` on it)."""
    for a in lst.iter("a"):
        href = (a.get("href") or "").strip()
        if "#" not in href or len(href.split("#", 1)[1]) == 0:
            continue
        target = href.split("#", 1)[0]
        if (base if not target else site.resolve(base, target)) == page:
            return True
    return False


def _own_links(item: etree._Element) -> list[etree._Element]:
    found: list[etree._Element] = []
    stack = list(reversed(item))
    while stack:
        node = stack.pop()
        if not isinstance(node.tag, str) or node.tag in _LISTS:
            continue
        if node.tag == "a" and node.get("href") is not None:
            found.append(node)
            continue
        stack.extend(reversed(node))
    return found


def _own_text(item: etree._Element) -> str:
    """The item's label: its text before its nested lists (and before a block holding them,
    such as a menu section's own ``nav``)."""
    parts = [item.text or ""]
    for child in item:
        if isinstance(child.tag, str) and (child.tag in _LISTS or _holds_list(child)):
            break
        parts.append("".join(child.itertext()))
        parts.append(child.tail or "")
    return " ".join("".join(parts).split())


def _holds_list(el: etree._Element) -> bool:
    return next(el.iter(*_LISTS), None) is not None


def _nested_lists(item: etree._Element) -> list[etree._Element]:
    """The lists directly nested in an item (not lists inside those)."""
    found: list[etree._Element] = []
    stack = list(reversed(item))
    while stack:
        node = stack.pop()
        if not isinstance(node.tag, str):
            continue
        if node.tag in _LISTS:
            found.append(node)
            continue
        stack.extend(reversed(node))
    return found
