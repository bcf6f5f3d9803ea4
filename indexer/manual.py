"""A manual of many files as one document: one text, one heading tree, one root summary.

Manuals ship as many pages (PostgreSQL's 1,169 HTML pages, BIND's Sphinx book) or as a folder
of chapters. Ingested file by file they become unrelated documents: nothing summarizes the
manual, nothing answers "what is this manual about". Here the files are parsed one by one and
joined: their texts concatenated (every span still slices the joined text) and each file's
heading tree grafted under a section of its own, titled by the file's title heading (its single
top heading, else its HTML ``<title>``, else its file name).

Reading order: an HTML book is followed from its start page along ``rel="next"`` links
(``<link rel="next">`` or DocBook's ``accesskey="n"`` anchor), and where pages name their parent
(``rel="up"``, ``accesskey="u"``) and the parent came earlier, a page nests under it (Part ›
Chapter › Section); the start page's own text stays the manual's front matter. Otherwise the
files go in the order given, a folder's in sorted order.

Each file's tree is a subtree of its own, so an edit of one page changes the hashes on its path
only: the other pages' summaries are cache hits.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from indexer.hashing import hash_bytes, hash_parts
from indexer.manual_site import is_html_name
from indexer.parsers.base import ParsedDocument, Section
from indexer.parsers.html import parse_html
from indexer.parsers.html_furniture import Furniture
from indexer.parsers.registry import is_supported, parse_bytes, plain_bytes
from indexer.reuse import Reuse
from indexer.tree import title_section

SEPARATOR = "\n\n"
_TAG = re.compile(rb"<(?:link|a)\b[^>]*>", re.I)
_ATTR = re.compile(rb"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")
_HTML_TITLE = re.compile(rb"<title[^>]*>(.*?)</title>", re.I | re.S)
_START_PAGES = ("index.html", "index.htm", "index.html.gz")
# Sphinx appends the project to every page title ("Chapter 3 — BIND 9 9.18 documentation").
_TITLE_SUFFIX = re.compile(r"\s+[—|–-]\s+[^—|–]*$")
# Doxygen puts the project first ("Doxygen: Installation").
_PREFIX_SEPS = (": ", " - ", " — ", " | ")


@dataclass
class ManualPage:
    """One file of a manual: its name inside the manual, its bytes, and its parent page.

    A group (``title`` set, no bytes) heads the pages below it without being a page: a
    Sphinx toctree caption, a MkDocs nav section, a site map's heading.
    """

    name: str
    data: bytes
    parent: str | None = None
    title: str | None = None


@dataclass
class _Links:
    next: str | None = None
    up: str | None = None


def _attrs(tag: bytes) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in _ATTR.finditer(tag):
        value = m.group(2) if m.group(2) is not None else m.group(3) or m.group(4) or b""
        out[m.group(1).decode("ascii", "replace").lower()] = value.decode("utf-8", "replace")
    return out


def _links(data: bytes) -> _Links:
    """The page's ``next`` and ``up`` hrefs (fragments dropped, external links ignored)."""
    found = _Links()
    for m in _TAG.finditer(data):
        a = _attrs(m.group())
        href = a.get("href", "").split("#", 1)[0]
        if not href or "://" in href or href.startswith(("mailto:", "/")):
            continue
        rel = set(a.get("rel", "").lower().split())
        key = a.get("accesskey", "").lower()
        if found.next is None and ("next" in rel or key == "n"):
            found.next = href
        if found.up is None and ("up" in rel or key == "u"):
            found.up = href
    return found


def _resolve(base: Path, href: str) -> Path | None:
    path = (base.parent / href).resolve()
    for candidate in (path, path.with_name(path.name + ".gz")):
        if candidate.is_file():
            return candidate
    return None


def reading_order(start: Path, read: Callable[[Path], bytes]) -> list[ManualPage]:
    """The pages of an HTML book from ``start`` along its ``next`` links, with parents.

    Links leaving the start page's folder, to missing files, or back to a page already read
    end the walk. A page's parent is its ``up`` page when that came earlier and is not the
    start page (whose own pages are the top level).
    """
    root = start.resolve().parent
    pages: list[ManualPage] = []
    names: dict[Path, str] = {}
    path: Path | None = start.resolve()
    while path is not None and path not in names:
        data = read(path)
        names[path] = path.relative_to(root).as_posix()
        links = _links(data)
        up = _resolve(path, links.up) if links.up else None
        parent = names.get(up) if up is not None and up != start.resolve() else None
        pages.append(ManualPage(names[path], data, parent if parent != names[path] else None))
        nxt = _resolve(path, links.next) if links.next else None
        path = nxt if nxt is not None and nxt.is_relative_to(root) else None
    return pages


def start_page(folder: Path) -> Path | None:
    """The folder's HTML start page when it begins a ``next`` chain, else None."""
    for name in _START_PAGES:
        page = folder / name
        if page.is_file() and not name.endswith(".gz") and _links(page.read_bytes()).next:
            return page
    return None


def manual_revision(pages: list[ManualPage]) -> str:
    """The manual's content hash: every page's name, parent and bytes, in order."""
    return hash_parts(
        [f"{p.name}\n{p.parent or ''}\n{p.title or ''}\n{hash_bytes(p.data)}" for p in pages]
    )


def is_manual_file(path: Path) -> bool:
    """Whether a file found in a manual's folder is one of its pages."""
    return is_supported(path.name) and not path.name.startswith(".")


@dataclass
class _Part:
    page: ManualPage
    parsed: ParsedDocument
    offset: int
    prefix: str = ""  # what every page's <title> starts with (the project's name)
    section: Section = field(init=False)


def parse_manual(
    pages: list[ManualPage],
    *,
    title: str | None = None,
    front: bool = False,
    front_sections: bool = True,
    chapters_from: str | None = None,
    furniture: Furniture | None = None,
    reuse: Reuse | None = None,
) -> ParsedDocument:
    """Join the pages into one document (see the module docstring).

    Args:
        pages: The pages in reading order.
        title: The manual's title; with ``front``, by default the start page's.
        front: The first page is the book's start page: its title is the manual's and its
            text the manual's front matter, not a chapter.
        front_sections: The start page's own sections are chapters (ahead of the other
            pages); else its whole text is the front matter.
        chapters_from: The title of the start page's first section that is a chapter (its
            own table of contents starts there); the sections before it are front matter.
        furniture: The blocks repeated across the manual's HTML pages, left out of their text.
        reuse: Where the pages parsed before are kept: an unchanged page is not parsed again.

    Raises:
        BadInputError: A page is empty, binary or corrupt (named in the message).
    """
    parts, groups = _parts(pages, furniture, reuse)
    text = SEPARATOR.join(p.parsed.text for p in parts)
    front_part = parts[0] if front and parts else None
    if front_part is not None and title is None:
        title = _page_title(front_part)
    root = Section(None, 0, 0, len(text), 0, 0)
    by_name: dict[str, Section] = {}
    sections: dict[str, Section] = {}
    for part in parts:
        if part is not front_part:
            part.section = _page_section(part)
            sections[part.page.name] = part.section
    for name, (group, at) in groups.items():
        sections[name] = Section(group.title, 1, at, at, at, at)
    for page in pages:
        section = sections.get(page.name)
        if section is None:
            if front_part is not None and page is front_part.page:
                _graft_front(root, front_part, sections=front_sections, first=chapters_from)
            continue
        parent = by_name.get(page.parent or "", root)
        parent.children.append(section)
        by_name[page.name] = section
    _close(root, len(text))
    fmt = parts[0].parsed.format if parts else "text"
    return ParsedDocument(text=text, root=root, format=fmt, page_starts=None, title=title)


def _parts(
    pages: list[ManualPage], furniture: Furniture | None, reuse: Reuse | None
) -> tuple[list[_Part], dict[str, tuple[ManualPage, int]]]:
    """The pages parsed at their offsets in the joined text, and the groups (titled entries
    with no page) at theirs."""
    parts: list[_Part] = []
    groups: dict[str, tuple[ManualPage, int]] = {}
    prefix = _project_prefix(pages)
    offset = 0
    for page in pages:
        if page.title is not None and not page.data:
            groups[page.name] = (page, offset)
            continue
        parsed = _parse_page(page, furniture, reuse)
        parts.append(_Part(page, parsed, offset, prefix))
        offset += len(parsed.text) + len(SEPARATOR)
    return parts, groups


def _parse_page(
    page: ManualPage, furniture: Furniture | None, reuse: Reuse | None = None
) -> ParsedDocument:
    if reuse is not None:  # an unchanged page (same bytes, same furniture) is not parsed again
        context = repr((sorted(furniture.texts), sorted(furniture.shapes))) if furniture else ""
        return reuse.parsed(page.name, page.data, context, lambda: _parse_page(page, furniture))
    if furniture is not None and is_html_name(page.name):
        return parse_html(plain_bytes(page.data, filename=page.name), filename=page.name,
                          furniture=furniture)  # fmt: skip
    return parse_bytes(page.data, filename=page.name)


def html_title(data: bytes) -> str:
    """The page's ``<title>``, entities decoded, on one line ('' when it has none)."""
    m = _HTML_TITLE.search(data[:65536])
    return " ".join(html.unescape(m.group(1).decode("utf-8", "replace")).split()) if m else ""


def _project_prefix(pages: list[ManualPage]) -> str:
    """The prefix most pages' ``<title>`` share ("Doxygen: "): the manual's name."""
    heads: Counter[str] = Counter()
    titles = [html_title(p.data) for p in pages if p.data and is_html_name(p.name)]
    for title in titles:
        cuts = [title.find(sep) + len(sep) for sep in _PREFIX_SEPS if sep in title]
        if cuts:
            heads[title[: min(cuts)]] += 1
    if not heads or len(titles) < 2:
        return ""
    prefix, count = heads.most_common(1)[0]
    return prefix if count >= 0.25 * len(titles) else ""


def _page_title(part: _Part) -> str:
    titled = title_section(part.parsed.root, part.parsed.text)
    if titled is not None and titled.title:
        return titled.title
    if part.parsed.title:
        return part.parsed.title
    found = html_title(part.page.data)
    if part.prefix and found.startswith(part.prefix) and len(found) > len(part.prefix):
        found = found[len(part.prefix) :]
    if found:
        return _TITLE_SUFFIX.sub("", found) or found
    return part.page.name.rsplit("/", 1)[-1].split(".", 1)[0]


def _shifted(section: Section, offset: int, depth: int) -> Section:
    return Section(
        title=section.title,
        depth=depth,
        char_start=section.char_start + offset,
        char_end=section.char_end + offset,
        body_start=section.body_start + offset,
        body_end=section.body_end + offset,
        children=[_shifted(c, offset, depth + 1) for c in section.children],
    )


def _page_section(part: _Part) -> Section:
    """The page as one section: its title heading's, or the whole page under its title."""
    parsed, off = part.parsed, part.offset
    titled = title_section(parsed.root, parsed.text)
    if titled is not None:
        section = _shifted(titled, off, 1)
        section.title = titled.title
        return section
    section = _shifted(parsed.root, off, 0)
    section.title = _page_title(part)
    section.char_start = off
    return section


def _graft_front(root: Section, part: _Part, *, sections: bool, first: str | None) -> None:
    """The start page's text is the manual's own body; its sub-headings become chapters
    (unless ``sections`` is off: then they stay in the front matter's text), from the one
    titled ``first`` on when the page has it."""
    parsed, off = part.parsed, part.offset
    titled = title_section(parsed.root, parsed.text) or parsed.root
    root.body_start = titled.body_start + off
    if not sections:
        return
    children = titled.children
    titles = [" ".join((c.title or "").split()) for c in children]
    if first is not None and first in titles:
        children = children[titles.index(first) :]
    root.children.extend(_shifted(c, off, 1) for c in children)


def _close(section: Section, end: int) -> None:
    """Spans and depths of grafted sections: each ends where its next sibling starts (or its
    parent ends) and lies one level below its parent."""
    for i, child in enumerate(section.children):
        child.depth = section.depth + 1
        child_end = section.children[i + 1].char_start if i + 1 < len(section.children) else end
        _close(child, child_end)
    section.char_end = end
    first = section.children[0].char_start if section.children else end
    section.body_end = max(min(first, end), min(section.body_start, end))
    section.body_start = min(section.body_start, section.body_end)
