"""An HTML page as an lxml tree: decoded, forgiving, with prefixed names taken as plain ones.

The DOM comes from lxml's HTML parser (libxml2), the same forgiving parser BeautifulSoup's
``lxml`` builder drives, used directly because building a BeautifulSoup tree was ~15x slower
(seconds for a 2 MB manual page).
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from indexer.errors import ParseError
from indexer.parsers.decoding import decode_text

_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)|<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)""",
    re.I,
)


_NAME = re.compile(r"[A-Za-z_][\w.-]*")
_NOT_NAME = re.compile(r"[^\w.-]")


def _plain_name(tag: str) -> str:
    """A tag name an XML tree can hold: a browser takes ``<flash.*>`` in running text (an
    unescaped example) as an unknown element; lxml refuses the name and, with it, the page."""
    if _NAME.fullmatch(tag):
        return tag
    name = _NOT_NAME.sub("-", tag)
    return name if _NAME.fullmatch(name) else f"x-{name}"


class _PlainNames:
    """A tree-building parser target that takes prefixed names (``xml:lang``, ``xlink:href``,
    Word's ``<o:p>``) as plain HTML names.

    lxml's own ``TreeBuilder`` refuses a name with a colon, and the parse then fails as a
    whole ("missing end tags"): every XHTML page with ``xml:lang`` or an ``xmlns:`` declaration
    would be unreadable. HTML has no namespaces, so a prefixed attribute is dropped (none is
    read) and a prefixed tag keeps its name with the colon replaced; so does any other
    character an XML name cannot hold (an attribute with one is dropped).
    """

    def __init__(self) -> None:
        self._builder = etree.TreeBuilder()

    def start(self, tag: str, attrib: dict[str, str]) -> Any:
        plain = {k: v for k, v in attrib.items() if ":" not in k and _NAME.fullmatch(k)}
        return self._builder.start(_plain_name(tag), plain)

    def end(self, tag: str) -> Any:
        return self._builder.end(_plain_name(tag))

    def data(self, data: str) -> None:
        self._builder.data(data)

    def close(self) -> Any:
        return self._builder.close()


def _sniff_encoding(data: bytes) -> str | None:
    m = _META_CHARSET.search(data[:4096])
    if m is None:
        return None
    raw = m.group(1) or m.group(2)
    return raw.decode("ascii", "replace")


def parse_dom(data: bytes, *, filename: str) -> etree._Element:
    """The page's element tree (comments and processing instructions dropped).

    Raises:
        BadInputError: Empty or binary content.
        ParseError: The markup could not be parsed.
    """
    text = decode_text(data, filename=filename, declared_encoding=_sniff_encoding(data))
    # A TreeBuilder target instead of libxml2's own tree: the latter stops, losing the rest of
    # the page, at 2048 levels of nesting (thousands of unclosed tags).
    parser = etree.HTMLParser(
        encoding="utf-8",
        remove_comments=True,
        remove_pis=True,
        huge_tree=True,
        target=_PlainNames(),
    )
    try:
        # Fed as UTF-8 bytes with the encoding fixed, so an in-document charset is ignored.
        parser.feed(text.encode("utf-8"))
        root: etree._Element = parser.close()
    except (etree.LxmlError, ValueError) as exc:
        raise ParseError(f"unparseable HTML: {exc}") from exc
    return root


def classes(el: etree._Element) -> list[str]:
    """The element's class names."""
    return (el.get("class") or "").split()


def words(el: etree._Element) -> int:
    """How many words the element's text holds."""
    return len("".join(el.itertext()).split())
