"""What every HTML generator's reader shares: the manual's pages, and the outline it yields."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import unquote

from lxml import etree

_GENERATOR_META = re.compile(
    rb"""<meta\s+[^>]*name\s*=\s*["']generator["'][^>]*content\s*=\s*["']([^"']*)["']"""
    rb"""|<meta\s+[^>]*content\s*=\s*["']([^"']*)["'][^>]*name\s*=\s*["']generator["']""",
    re.I,
)


@dataclass
class Entry:
    """One entry of a manual's outline: a page (``page``, its name in the manual) or a group
    heading that holds pages but is no page itself (``page`` None, e.g. a Sphinx toctree
    caption, a MkDocs nav section)."""

    title: str
    page: str | None
    children: list[Entry] = field(default_factory=list)
    # The contents list the page's own sections below it (links to its anchors).
    lists_sections: bool = False

    def walk(self) -> Iterator[Entry]:
        """This entry and every entry below it, in reading order."""
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass
class Site:
    """The HTML pages of one manual, by name (their path under the manual's folder, without
    ``.gz``), with the start page and a reader for its other files (scripts that hold a
    navigation tree)."""

    pages: dict[str, etree._Element]
    raw: dict[str, bytes]
    start: str
    read_file: Callable[[str], bytes | None] = lambda name: None
    aliases: dict[str, str] = field(default_factory=dict)  # another name (a link) → page
    # Pages whose lists the outline was made of (a site map): structure, not text.
    contents_pages: set[str] = field(default_factory=set)
    report_unreached: bool = True  # every page must be read or reported (a folder was given)
    title: str | None = None  # the manual's name where the generator prints one on every page

    def resolve(self, base: str, href: str | None) -> str | None:
        """The page a link of page ``base`` leads to, or None (another site, a missing page,
        an anchor of the page itself)."""
        if not href:
            return None
        href = href.strip().split("#", 1)[0].split("?", 1)[0]
        if not href or "://" in href or href.startswith(("mailto:", "javascript:", "/")):
            return None
        name = posixpath.normpath(posixpath.join(posixpath.dirname(base), unquote(href)))
        name = self.aliases.get(name, name)
        return name if name in self.pages else None

    def generator_meta(self, name: str) -> str:
        """The page's ``<meta name="generator">`` content, or ''."""
        m = _GENERATOR_META.search(self.raw.get(name, b""))
        if m is None:
            return ""
        return (m.group(1) or m.group(2) or b"").decode("utf-8", "replace")


class Generator(Protocol):
    """A documentation generator's way of writing a manual's structure into its pages."""

    name: str
    # Whether the start page's own sections are chapters; no when the pages its contents
    # list are the chapters and its sections only introduce them (Sphinx's root toctree).
    start_sections: bool

    def detect(self, site: Site) -> bool:
        """Whether the start page was written by this generator (its marks in the markup)."""
        ...

    def outline(self, site: Site) -> list[Entry]:
        """The manual's chapters (with their sections below) as the manual's own contents or
        navigation give them, the start page excluded; pages it does not reach are left to
        the caller."""
        ...


def link_text(a: etree._Element) -> str:
    """A link's text on one line."""
    return " ".join("".join(a.itertext()).split())
