"""A folder of HTML pages read as the manual its generator wrote: every page placed where the
manual's own outline puts it, or reported with the reason.

1. The pages are read and parsed; the start page is ``index.html`` (or the file given).
2. The generator is told by its marks (:mod:`indexer.parsers.generators`) and gives the outline
   from the manual's own contents or navigation (Texinfo's node tree, Sphinx's toctree, …).
3. The blocks repeated across the pages are found (:mod:`indexer.parsers.html_furniture`).
4. A page the outline does not reach is placed under the first page (in reading order) whose
   text lists it: Javadoc's classes under their package, NTPsec's driver pages under
   "Reference Clock Support"; then, when a folder was given, under the first page whose
   sentence cites it.
5. A page of the outline that only lists the pages below it is a group titled as the page
   (Doxygen's "Modules").
6. What is left is reported: a generated index (a page that is mostly links: Texinfo's and
   Sphinx's indexes, a site map whose links made the outline; a list of terms, each linking
   to where another page documents it: Doxygen's globals), a page
   reached only from navigation bars (search, help, "Use" pages), a page nothing links to.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from indexer.errors import OverstoryError
from indexer.manual_contents import contents_pages_as_groups, term_index
from indexer.manual_front import first_listed_section
from indexer.manual_links import linked_from_chrome, place_linked
from indexer.parsers.generators import Entry, Generator, Site, detect
from indexer.parsers.html_chrome import PageChrome
from indexer.parsers.html_dom import parse_dom
from indexer.parsers.html_furniture import Furniture, find_furniture
from indexer.parsers.registry import plain_bytes

HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".html.gz", ".htm.gz")
# A page is a generated index when most of its text is links, and there are many of them.
_INDEX_LINK_SHARE = 0.6
_INDEX_MIN_LINKS = 20
_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")


@dataclass(frozen=True)
class SitePage:
    """A page of the manual in reading order: its name, its HTML, and the page or group it
    nests under (``parent``; None for a chapter). A group (``title`` set, no HTML) heads
    pages without being one (a Sphinx toctree caption, a MkDocs nav section)."""

    name: str
    data: bytes
    parent: str | None = None
    title: str | None = None


@dataclass
class SiteReading:
    """What reading a folder as one HTML manual found."""

    generator: str
    start: str
    pages: list[SitePage]
    refused: list[tuple[str, str]] = field(default_factory=list)  # page name, reason
    furniture: Furniture = field(default_factory=Furniture)
    start_sections: bool = True  # the start page's own sections are chapters
    # the first of them, when its own table of contents starts further down (the ones before
    # are front matter)
    chapters_from: str | None = None
    title: str | None = None  # the manual's title when not its start page's (a frameset's)


def is_html_name(name: str) -> bool:
    """Whether a file name is an HTML page's."""
    return name.lower().endswith(HTML_SUFFIXES)


def page_name(name: str) -> str:
    """A page's name in the manual: its path under the folder, without ``.gz``."""
    return name[:-3] if name.lower().endswith(".gz") else name


def read_site(
    files: dict[str, Path],
    read: Callable[[Path], bytes],
    *,
    start: str | list[str],
    aliases: dict[str, str] | None = None,
    report_unreached: bool = True,
) -> SiteReading:
    """Read the HTML pages ``files`` (name under the folder → path) as one manual.

    Args:
        files: The folder's HTML files by name.
        read: Reads a file's bytes (enforcing the ingest's limits; may raise).
        start: The start page's name, or candidates (the one linking the most pages wins:
            ``index.html`` may be a language chooser beside ``index.en.html``).
        aliases: Other names of pages (symbolic links to them), name → page name.
        report_unreached: Report the pages the manual does not reach (a folder was given);
            else they are left out silently (a start page was given: the manual is what it
            reaches).
    """
    refused: list[tuple[str, str]] = []
    pages: dict[str, etree._Element] = {}
    raw: dict[str, bytes] = {}
    paths = {page_name(n): p for n, p in files.items()}
    for name, path in sorted(paths.items()):
        try:
            data = plain_bytes(read(path), filename=path.name)
            pages[name] = parse_dom(data, filename=name)
            raw[name] = data
        except (OverstoryError, OSError) as exc:
            refused.append((name, _reason(exc)))
    names = {page_name(k): page_name(v) for k, v in (aliases or {}).items()}
    candidates = [names.get(page_name(s), page_name(s)) for s in _as_list(start)]
    candidates = [c for c in candidates if c in pages]
    if not candidates:
        return SiteReading("generic", page_name(_as_list(start)[0]), [], refused)
    start = max(candidates, key=lambda c: (_linked_pages(c, pages, names), -candidates.index(c)))
    if start not in pages:
        return SiteReading("generic", start, [], refused)
    folder = paths[start].parent
    title = generator = None
    opened = Site(pages, raw, start, aliases=names)
    frame = _content_frame(opened)
    if frame is not None:  # a frameset is no page: the manual starts in its content frame
        title = " ".join((pages[start].findtext(".//title") or "").split()) or None
        generator = detect(opened)  # its marks are on the page opened
        start = frame
    site = Site(pages, raw, start, read_file=lambda n: _read_extra(folder, n), aliases=names)
    site.report_unreached = report_unreached
    reading = _read_outline(site, folder_refused=refused, generator=generator)
    reading.title = title or site.title
    return reading


def _content_frame(site: Site) -> str | None:
    """The start page's content frame when it is a frameset: the frame the manual's links
    open their pages in (``target``; the navigation frames are the ones holding those links),
    else its last frame. None when the start page has no frames."""
    frames = [
        (frame.get("name") or "", page)
        for frame in site.pages[site.start].iter("frame")
        if (page := site.resolve(site.start, frame.get("src"))) is not None
    ]
    if not frames:
        return None
    targets = Counter(a.get("target") for root in site.pages.values() for a in root.iter("a"))
    return max(reversed(frames), key=lambda f: targets[f[0]] if f[0] else 0)[1]


def _read_outline(
    site: Site, *, folder_refused: list[tuple[str, str]], generator: Generator | None = None
) -> SiteReading:
    pages, start = site.pages, site.start
    generator = generator or detect(site)
    furniture = find_furniture(list(pages.values()))
    chromes = {n: PageChrome(root, furniture=furniture, name=n) for n, root in pages.items()}
    try:
        outline = generator.outline(site)
    except (ValueError, KeyError, TypeError, IndexError):
        outline = []
    start_sections = generator.start_sections and _start_sections_listed(outline, start)
    outline = _first_places(outline, {start})
    indexes = {
        name: reason
        for name in pages
        if name != start and (reason := _not_text(pages[name], chromes[name]))
    }
    for name in set(pages) - set(indexes) - {start}:
        if reason := term_index(site, name, chromes[name]):
            indexes[name] = reason
    for name in site.contents_pages - {start}:
        indexes[name] = "the manual's site map: its lists of pages are the outline"
    outline = _without(outline, set(indexes))
    nested = _nested_sites(site, outline)
    apart = {n for n in pages if any(n.startswith(f"{d}/") for d in nested)}
    place_linked(site, outline, chromes, skip=set(indexes) | apart)
    bare = _headings_only(site, outline, chromes)
    indexes.update(bare)
    outline = _without(outline, set(bare))
    indexes.update(contents_pages_as_groups(site, outline, chromes))
    placed = {start} | {n.page for e in outline for n in e.walk() if n.page is not None}
    refused = list(folder_refused)
    if site.report_unreached:
        refused.extend(sorted(indexes.items()))
        refused.extend(_unreached(site, placed | set(indexes), nested, chromes))
    ordered = [SitePage(start, site.raw[start])]
    ordered.extend(_flatten(outline, site.raw, None))
    first = first_listed_section(pages[start], chromes[start]) if start_sections else None
    return SiteReading(generator.name, start, ordered, refused, furniture, start_sections, first)


def _start_sections_listed(outline: list[Entry], start: str) -> bool:
    """Whether the start page's own sections may be chapters: not when the manual's contents
    list the start page as one page beside the chapters (a site map's first entry) and none of
    its sections."""
    listed = [e for top in outline for e in top.walk() if e.page == start]
    return not listed or any(e.lists_sections for e in listed)


def _unreached(
    site: Site, placed: set[str], nested: list[str], chromes: dict[str, PageChrome]
) -> list[tuple[str, str]]:
    """The pages left unread, each with the reason."""
    from_nav = linked_from_chrome(site, placed, chromes)
    out = []
    for name in sorted(set(site.pages) - placed):
        site_dir = next((d for d in nested if name.startswith(f"{d}/")), None)
        if site_dir is not None:
            reason = f"part of another site in the folder ({site_dir}/, its own start page)"
        elif name in from_nav:
            reason = "reached only from the navigation bars, not from the manual's text"
        else:
            reason = "no page of the manual links to it"
        out.append((name, reason))
    return out


def _as_list(start: str | list[str]) -> list[str]:
    return [start] if isinstance(start, str) else start


def _linked_pages(name: str, pages: dict[str, etree._Element], aliases: dict[str, str]) -> int:
    site = Site(pages, {}, name, aliases=aliases)
    return len({site.resolve(name, a.get("href")) for a in pages[name].iter("a")} - {None})


def _reason(exc: OverstoryError | OSError) -> str:
    if isinstance(exc, OverstoryError):
        return exc.message
    return f"not readable: {exc.strerror or exc}"


def _read_extra(folder: Path, name: str) -> bytes | None:
    path = (folder / name).resolve()
    if not path.is_relative_to(folder.resolve()) or not path.is_file():
        return None
    return path.read_bytes()


def _not_text(root: etree._Element, chrome: PageChrome) -> str | None:
    """Why the page is not read as text (a generated index, chrome only), or None."""
    for meta in root.iter("meta"):
        if (meta.get("http-equiv") or "").lower() == "refresh":
            target = (meta.get("content") or "").partition("=")[2].strip() or "another page"
            return f"a redirection to {target}"
    body = root.find("body")
    if body is None:
        return "no text of its own (navigation only, or a frameset)"
    # an index's entries are rows of links to other pages: not its text, yet what it is made of
    links = [
        a
        for a in body.iter("a")
        if (href := a.get("href"))
        and (not _in_chrome(a, chrome) or (chrome.in_row(a) and not href.startswith("#")))
    ]
    share = chrome.link_share(body)
    if len(links) >= _INDEX_MIN_LINKS and share >= _INDEX_LINK_SHARE:
        return (
            f"a generated index or contents page ({len(links)} links, {share:.0%} of its "
            "text): its entries point at pages read elsewhere"
        )
    if not _has_text(body, chrome):
        return "no text of its own (navigation only, or a frameset)"
    return None


def _headings_only(
    site: Site, outline: list[Entry], chromes: dict[str, PageChrome]
) -> dict[str, str]:
    """The pages with nothing but headings once chrome is gone (a site map whose lists made
    the outline) and no pages below them: they title nothing."""
    found = {}
    for entry in (n for e in outline for n in e.walk()):
        if entry.page is None or entry.children:
            continue
        body = site.pages[entry.page].find("body")
        if body is not None and not _has_text(body, chromes[entry.page], headings=False):
            found[entry.page] = "only headings once its navigation and lists of links are gone"
    return found


def _has_text(body: etree._Element, chrome: PageChrome, *, headings: bool = True) -> bool:
    stack = [body]
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str) or el.tag in ("script", "style") or chrome.skips(el):
            continue
        if not headings and el.tag in (*_HEADING_TAGS, "title"):
            continue
        if (el.text or "").strip() or any((c.tail or "").strip() for c in el):
            return True
        stack.extend(el)
    return False


def _in_chrome(el: etree._Element, chrome: PageChrome) -> bool:
    return chrome.skips(el) or any(chrome.skips(p) for p in el.iterancestors())


def _nested_sites(site: Site, outline: list[Entry]) -> list[str]:
    """Subfolders with a start page of their own that the outline does not list: other sites
    (Doxygen's example outputs), not sections of this manual."""
    listed = {n.page for e in outline for n in e.walk() if n.page is not None}
    found = []
    for name in site.pages:
        folder, _, base = name.rpartition("/")
        if folder and base.startswith("index.") and name not in listed:
            # a sub-folder's index leading back to the manual's start page is a section of it
            links = (site.resolve(name, a.get("href")) for a in site.pages[name].iter("a"))
            if site.start not in links:
                found.append(folder)
    return sorted(found)


def _first_places(entries: list[Entry], placed: set[str]) -> list[Entry]:
    """The outline with each page at its first place only (a site map may list it twice)."""
    out: list[Entry] = []
    for entry in entries:
        if entry.page is not None:
            if entry.page in placed:
                out.extend(_first_places(entry.children, placed))
                continue
            placed.add(entry.page)
        entry.children = _first_places(entry.children, placed)
        out.append(entry)
    return out


def _without(entries: list[Entry], names: set[str]) -> list[Entry]:
    out: list[Entry] = []
    for entry in entries:
        children = _without(entry.children, names)
        if entry.page is not None and entry.page in names:
            out.extend(children)
            continue
        entry.children = children
        if entry.page is not None or children:
            out.append(entry)
    return out


def _flatten(entries: list[Entry], raw: dict[str, bytes], parent: str | None) -> list[SitePage]:
    out: list[SitePage] = []
    for i, entry in enumerate(entries):
        if entry.page is not None:
            key = entry.page
            out.append(SitePage(key, raw[key], parent))
        else:
            key = f"{parent or ''}#{i}:{entry.title}"
            out.append(SitePage(key, b"", parent, title=entry.title or "(untitled)"))
        out.extend(_flatten(entry.children, raw, key))
    return out
