"""Page chrome: the parts of an HTML page that are not its text, found by what they are.

No generator's class names: every rule reads what the markup says or does.

- **HTML5 and ARIA semantics**: ``nav``, ``aside``, ``form`` (search boxes), ``menu``, a page's
  ``header`` and ``footer`` (not an article's own), and the landmarks ``navigation``,
  ``banner``, ``contentinfo``, ``search``, ``complementary``.
- **Navigation bars**: a short block made mostly of links that say they are navigation
  (``rel="next"``, ``prev``, ``up``, ``index``…, or an ``accesskey``): Texinfo's
  "Next: / Previous: / Up:" lines, DocBook's and Sphinx's relation bars.
- **Contents lists**: a list whose text is almost all link text, the links leading into the
  manual (its pages, or anchors of this page): a per-page table of contents, a Texinfo menu,
  a Sphinx toctree, breadcrumbs, "Related Links". A short caption that only titles the list
  ("Table of Contents") goes with it. A line of links to the page's own sections, set apart
  by separators, is such a list written inline (Doxygen's "Data Structures | Macros").
- **Summary rows**: a table row whose links all lead into the manual, one of them to a section
  further on in the same page (a member summary: Doxygen's and Javadoc's declaration and first
  sentence of each member, which the member's own section gives again; the types it names
  link to their own pages).
- **Contents rows**: a table row made almost all of link text, its links leading into the
  manual (Doxygen's lists of a module's sub-modules): a contents list written as a table.
- **Permalinks**: a link of one symbol ("¶", "#") to an anchor.
- **Skip links**: a link, before the page's first heading, to an anchor of the page at or
  before that heading ("Skip to content", "Skip navigation links"): it jumps over the
  page's chrome to its text.
- **Pointers**: a link to another page standing alone between blocks, no text around it
  ("Go to the documentation of this file."): it only points elsewhere.
- **Trailer**: the short blocks ending the page after the block holding its last heading,
  outside it, with no heading, no sentence and no link back into the page (a footnote has
  one): "Version 4.7.5 / Last updated 2023-03-23", the page's colophon, which a manual of one
  page cannot show by repetition.
- **Furniture**: blocks that repeat across the pages of one manual
  (:mod:`indexer.parsers.html_furniture`), given by the caller.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote

from lxml import etree

from indexer.parsers.html_dom import classes
from indexer.parsers.html_furniture import Furniture
from indexer.parsers.html_tally import Tally, is_internal, letters

_SEMANTIC_TAGS = frozenset({"nav", "aside", "form", "menu"})
_SECTIONING = frozenset({"article", "section", "main"})
_CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "search", "complementary"})
_NAV_RELS = frozenset(
    {"next", "prev", "previous", "up", "start", "first", "last", "index", "contents", "home"}
)
# Kept from before the rules above, for DocBook bars written without their accesskeys; no
# generator needs a name added here.
_CHROME_CLASSES = frozenset({"navheader", "navfooter"})
_LISTS = ("ul", "ol", "dl")
_LINE_BLOCKS = ("p", "div")
_SEPARATORS = " \t\r\n\xa0|•·/"
_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_INLINE = frozenset({"a", "span", "b", "i", "em", "strong", "code", "tt", "small", "kbd", "var"})
# A navigation bar is short: Texinfo's "Next: …, Previous: …, Up: …" is about 10 words;
# DocBook's bars carry two page titles.
_NAV_BAR_MAX_WORDS = 60
_LINK_SHARE = 0.8  # of a contents list's text that is link text
_CAPTION_MAX_WORDS = 5
_TRAILER_MAX_WORDS = 25
# a sentence ends after a word, not inside a version number or a date ("4.7.5")
_SENTENCE_END = re.compile(r"[^\W\d][.!?](?:\s|$)")


def _text(el: etree._Element) -> str:
    """The element's text; a script's or style sheet's code is none of it."""
    if el.find(".//script") is None and el.find(".//style") is None:
        return "".join(el.itertext())
    parts: list[str] = []

    def walk(node: etree._Element) -> None:
        if isinstance(node.tag, str) and node.tag not in ("script", "style"):
            parts.append(node.text or "")
            for child in node:
                walk(child)
                parts.append(child.tail or "")

    walk(el)
    return "".join(parts)


class PageChrome:
    """Which elements of one page are chrome (see the module docstring).

    Args:
        root: The page's element tree.
        furniture: The manual's repeated blocks, when the page is one of a manual's.
        name: The page's file name (its path in the manual): its links to itself may name it.
    """

    def __init__(
        self, root: etree._Element, *, furniture: Furniture | None = None, name: str = ""
    ) -> None:
        self._marked: set[etree._Element] = set()
        self._rows: set[etree._Element] = set()
        self._tally = Tally(root)
        self.furniture_blocks = 0
        self._mark_navigation_bars(root)
        self._mark_contents_lists(root)
        self._mark_summary_rows(root, name)
        self._mark_skip_links(root)
        self._mark_pointers(root)
        self._mark_trailer(root)
        if furniture is not None:
            self._mark_furniture(root, furniture)

    def skips(self, el: etree._Element) -> bool:
        """Whether ``el`` (and all below it) is chrome."""
        name = el.tag
        if not isinstance(name, str):
            return True
        if name in _SEMANTIC_TAGS or el.get("role") in _CHROME_ROLES:
            return True
        if el.get("hidden") is not None or el in self._marked:
            return True
        if name == "header":
            # Page banners go; an article's own header (often holding its h1) stays.
            return not any(p.tag in _SECTIONING for p in el.iterancestors())
        if name == "footer":
            # Only an article's own footer is content: themes (Sphinx's Read the Docs) wrap
            # the page footer ("Built with Sphinx", previous/next buttons) in a <section>.
            return not any(p.tag == "article" for p in el.iterancestors())
        if name == "a" and _is_permalink(el):
            return True
        return has_class(el, _CHROME_CLASSES)

    def link_share(self, el: etree._Element) -> float:
        """The share of the letters of ``el`` (an element of the page) that are link text."""
        return self._tally.link_share(el)

    def is_row(self, el: etree._Element) -> bool:
        """Whether ``el`` is a summary or contents row: an entry of a list of the manual's
        members or pages, not its text, yet no navigation either."""
        return el in self._rows

    def in_row(self, el: etree._Element) -> bool:
        """Whether ``el`` is inside a summary or contents row (see :meth:`is_row`)."""
        return any(p in self._rows for p in el.iterancestors())

    def _mark_navigation_bars(self, root: etree._Element) -> None:
        for a in root.iter("a", "link"):
            if a.tag == "link":
                continue
            rel = set((a.get("rel") or "").lower().split())
            if not (rel & _NAV_RELS or a.get("accesskey")):
                continue
            bar = _navigation_bar(a, self._tally)
            if bar is not None:
                self._marked.add(bar)

    def _mark_contents_lists(self, root: etree._Element) -> None:
        tally = self._tally
        # in document order, a list lies in a marked element when that element starts at or
        # before it and its subtree reaches it
        starts = sorted((tally.at(m), tally.end(m)) for m in self._marked)
        reach, nxt = -1, 0
        for lst in root.iter(*_LISTS):
            at = tally.at(lst)
            while nxt < len(starts) and starts[nxt][0] <= at:
                reach = max(reach, starts[nxt][1])
                nxt += 1
            if at <= reach or not _is_contents_list(lst, tally):
                continue
            marked = _with_caption(lst)
            self._marked.add(marked)
            reach = max(reach, tally.end(marked))
        for block in root.iter(*_LINE_BLOCKS):
            if _is_contents_line(block) or _is_link_line(block):
                self._marked.add(block)

    def _mark_summary_rows(self, root: etree._Element, name: str) -> None:
        anchors: dict[str, int] = {}
        rows: list[tuple[int, etree._Element]] = []
        for at, el in enumerate(self._tally.elements):
            if not isinstance(el.tag, str):
                continue
            for key in (el.get("id"), el.get("name") if el.tag == "a" else None):
                if key:
                    anchors.setdefault(key, at)
            if el.tag == "tr":
                rows.append((at, el))
        for at, row in rows:
            if row.find(".//table") is not None or _holds_heading(row):
                continue
            links = [a.get("href") or "" for a in row.iter("a") if a.get("href") is not None]
            if not links or not all(is_internal(href) for href in links):
                continue
            further = (anchors.get(_own_anchor(href, name) or "", -1) > at for href in links)
            if any(further) or self._tally.link_share(row) >= _LINK_SHARE:
                self._marked.add(row)
                self._rows.add(row)

    def _mark_skip_links(self, root: etree._Element) -> None:
        links: list[tuple[int, etree._Element]] = []
        ids: dict[str, int] = {}
        heading = None
        reach = -1  # the first heading, or the first one with an anchor when it has none
        for at, el in enumerate(self._tally.elements):
            if not isinstance(el.tag, str):
                continue
            name = el.get("id") or (el.get("name") if el.tag == "a" else None)
            if name:
                ids.setdefault(name, at)
            if el.tag in _HEADING_TAGS:
                heading = el if heading is None else heading
                if name or el.find(".//a[@name]") is not None or el.find(".//*[@id]") is not None:
                    reach = at
                    break
                reach = at
            href = el.get("href") or ""
            if heading is None and el.tag == "a" and href.startswith("#") and len(href) > 1:
                links.append((at, el))
        if heading is None:
            return
        above = {ids[n] for p in heading.iterancestors() if (n := p.get("id") or "") in ids}
        for at, a in links:
            target = ids.get((a.get("href") or "")[1:])
            if target is not None and (at < target <= reach or target in above):
                block = _block_of(a)
                whole = block is not None and letters(_text(block)) == letters(_text(a))
                self._marked.add(block if whole and block is not None else a)

    def _mark_pointers(self, root: etree._Element) -> None:
        in_blocks: dict[etree._Element, bool] = {}  # whether a parent holds blocks
        for a in root.iter("a"):
            href = (a.get("href") or "").strip()
            if not href or href.startswith("#") or not is_internal(href) or not _text(a).strip():
                continue
            parent = a.getparent()
            if parent is None or (a.tail or "").strip():
                continue
            prev = a.getprevious()
            if ((prev.tail if prev is not None else parent.text) or "").strip():
                continue
            if parent not in in_blocks:
                in_blocks[parent] = any(
                    isinstance(c.tag, str) and c.tag not in _INLINE for c in parent
                )
            if in_blocks[parent]:
                self._marked.add(a)

    def _mark_trailer(self, root: etree._Element) -> None:
        headings = list(root.iter(*_HEADING_TAGS))
        if not headings:
            return
        last = headings[-1]
        # the page's text ends with the block holding its last heading and its text; a
        # heading standing alone (in the body, or wrapped) has its section's text after it
        node = last
        parent = node.getparent()
        while parent is not None and parent.tag not in ("body", "html"):
            node, parent = parent, parent.getparent()
        if parent is None or letters(_text(node)) <= letters(_text(last)):
            return
        # from the page's end back, as far as the blocks are colophon-like
        for block in reversed(list(node.itersiblings())):
            if not isinstance(block.tag, str) or block.tag in ("script", "style"):
                continue
            text = _text(block)
            words = len(text.split())
            if not words or self.skips(block):
                continue
            # footnotes, which link back to where they are cited, are the page's text
            back = any((a.get("href") or "").startswith("#") for a in block.iter("a"))
            if words > _TRAILER_MAX_WORDS or _SENTENCE_END.search(text) or back:
                return
            if _holds_heading(block):
                return
            self._marked.add(block)

    def _mark_furniture(self, root: etree._Element, furniture: Furniture) -> None:
        for el in furniture.blocks(root, skips=self.skips):
            self._marked.add(el)
            self.furniture_blocks += 1


def _own_anchor(href: str, name: str) -> str | None:
    """The anchor a link leads to when it stays on the page ``name``, else None."""
    page, _, anchor = href.strip().partition("#")
    if not anchor:
        return None
    if page and (
        not name
        or posixpath.normpath(posixpath.join(posixpath.dirname(name), unquote(page))) != name
    ):
        return None
    return unquote(anchor)


def _is_permalink(a: etree._Element) -> bool:
    href = a.get("href") or ""
    text = _text(a).strip()
    return href.startswith("#") and len(text) <= 1 and not text.isalnum()


def _block_of(el: etree._Element) -> etree._Element | None:
    node: etree._Element | None = el
    while node is not None and node.tag in _INLINE:
        node = node.getparent()
    return node


def _navigation_bar(a: etree._Element, tally: Tally) -> etree._Element | None:
    """The largest short, link-made block around a navigation link."""
    block = _block_of(a)
    found = None
    while block is not None and block.tag not in ("body", "html"):
        if len(_text(block).split()) > _NAV_BAR_MAX_WORDS or tally.link_share(block) < 0.5:
            break
        if _holds_heading(block):
            break
        found = block
        block = block.getparent()
    return found


def _holds_heading(el: etree._Element) -> bool:
    """A block holding a heading is a section, never chrome around a list or bar."""
    return el.tag in _HEADING_TAGS or next(el.iter(*_HEADING_TAGS), None) is not None


def _is_contents_list(lst: etree._Element, tally: Tally) -> bool:
    links = tally.links(lst)
    if links == 1:
        # A chapter's contents of one section (DocBook's "Table of Contents" over a chapter
        # with one section): a link to a heading of this page, and nothing else.
        link = tally.first_link(lst)
        href = link.get("href") or "" if link is not None else ""
        return tally.link_share(lst) >= _LINK_SHARE and _to_heading(tally, href)
    if links < 2 or tally.internal_links(lst) < 0.9 * links:
        return False
    return tally.link_share(lst) >= _LINK_SHARE


def _to_heading(tally: Tally, href: str) -> bool:
    """Whether ``href`` leads to a heading of the page, or to a section holding one."""
    target = tally.anchor(href[1:]) if href.startswith("#") else None
    if target is None:
        return False
    if target.tag in _HEADING_TAGS or _holds_heading(target):
        return True
    return any(a.tag in _HEADING_TAGS for a in target.iterancestors())


def _is_link_line(block: etree._Element) -> bool:
    """A line of three or more links with only separators between them, after at most a short
    label: a menu bar, breadcrumbs or a language chooser ("Modules | Directives | FAQ",
    "Apache > HTTP Server > Documentation", "Available Languages: en | fr | ja"), wherever the
    links lead. Prose between links ("see a, b and c") makes it a sentence."""
    if any(isinstance(c.tag, str) and c.tag not in _INLINE for c in block):
        return False
    links = [a for a in block.iter("a") if a.get("href") is not None]
    if len(links) < 3 or len(_text(block).split()) > _NAV_BAR_MAX_WORDS:
        return False
    between = _LINE_LABEL.sub("", _between_links(block, links).strip(), count=1)
    marks = "|•·/><»›"
    # links set apart by spaces alone are a list of entries (an index's letters, its terms)
    return any(c in marks for c in between) and not between.strip(_SEPARATORS + marks)


def _between_links(block: etree._Element, links: list[etree._Element]) -> str:
    """The block's text with each link's text taken out: what sets the links apart."""
    between = _text(block)
    for a in links:
        between = between.replace(_text(a), " ", 1)
    return between


_LINE_LABEL = re.compile(r"^[\w ]{1,30}:")


def _is_contents_line(block: etree._Element) -> bool:
    """A page's table of contents written as one line of links to its own sections, set apart
    by separators ("Data Structures | Macros | Functions" atop Doxygen's pages)."""
    if any(isinstance(c.tag, str) and c.tag not in _INLINE for c in block):
        return False
    links = [a for a in block.iter("a") if a.get("href") is not None]
    hrefs = [a.get("href") or "" for a in links]
    if len(links) < 2 or not all(h.startswith("#") and len(h) > 1 for h in hrefs):
        return False
    between = _between_links(block, links)
    # only separators between the links: "dig(1), named(8)." is a sentence citing them
    return len(_text(block).split()) <= _NAV_BAR_MAX_WORDS and not between.strip(_SEPARATORS)


def _with_caption(lst: etree._Element) -> etree._Element:
    """The list, or the container that holds only it and a short caption ("Contents").

    A caption that is a heading is kept (a section of a heading and links is the page's "See
    also"), unless every link of the list leads into this page: a heading over the page's own
    contents only ("Table of Contents" atop Doxygen's pages) heads no text of its own, and
    kept, it became the section that the page's opening text was read under."""
    inner = letters(_text(lst))
    own_contents = all(
        (a.get("href") or "").startswith("#") for a in lst.iter("a") if a.get("href") is not None
    )
    node = lst
    parent = node.getparent()
    while parent is not None and parent.tag not in ("body", "html", "main"):
        extra = len(_text(parent).split()) - len(_text(node).split())
        if extra > _CAPTION_MAX_WORDS or letters(_text(parent)) < inner:
            break
        if any(isinstance(c.tag, str) and c.tag in _LISTS and c is not node for c in parent):
            break
        if _holds_heading(parent) and not (own_contents and _only_caption_heading(parent, node)):
            break
        node = parent
        parent = node.getparent()
    return node


def _only_caption_heading(parent: etree._Element, node: etree._Element) -> bool:
    """Whether ``parent`` holds ``node`` and one heading right before it, and nothing else
    with text: the heading is the list's caption, not a title over more."""
    kids = [c for c in parent if isinstance(c.tag, str) and _text(c).strip()]
    return (
        len(kids) == 2
        and kids[1] is node
        and kids[0].tag in _HEADING_TAGS
        and not (parent.text or "").strip()
        and not any((c.tail or "").strip() for c in kids)
    )


def has_class(el: etree._Element, names: frozenset[str]) -> bool:
    """Whether the element carries one of ``names`` as a class."""
    return not names.isdisjoint(classes(el))
