"""What each element of one page holds, counted once from the leaves up.

The chrome rules ask of many nested elements how many letters and links each holds. Asked
of every list in turn, a list nested 40,000 deep reads its own text 40,000 times; counted
once from the leaves up, every answer is a lookup and the pass is linear in the page.

The tally also holds every element of the page for as long as it lives, and nothing else
holds one: lxml frees an element's Python object as soon as nothing refers to it, looking up
through its ancestors for one still held. Walking a deep tree without holding what it
visits, or freeing a parent before its children, costs the square of the depth; the list
frees its elements last first, children before their parents.
"""

from __future__ import annotations

from lxml import etree

_UNREAD = frozenset({"script", "style"})
_PUNCTUATION = str.maketrans("", "", "»›>|•·,:;()[]-–—/")


def letters(text: str) -> int:
    """How many letters (not spaces, not list punctuation) ``text`` holds."""
    return len("".join(text.translate(_PUNCTUATION).split()))


def is_internal(href: str) -> bool:
    """Whether a link leads into the manual (a relative page or an anchor), not elsewhere."""
    href = href.strip()
    return bool(href) and "://" not in href and not href.startswith(("mailto:", "javascript:"))


class Tally:
    """Counts per element of the page under ``root``, in document order.

    For every element: the letters of its text (a script's or style sheet's code is none of
    it), the letters of its links' text, its links and how many lead into the manual, its
    first link, and where its subtree ends in document order.
    """

    def __init__(self, root: etree._Element) -> None:
        self.elements: list[etree._Element] = list(root.iter())
        # keyed by identity, not by element: see the module docstring
        self._at = {id(el): i for i, el in enumerate(self.elements)}
        n = len(self.elements)
        self._letters = [0] * n
        self._link_letters = [0] * n
        self._links = [0] * n
        self._internal = [0] * n
        self._first_link = [-1] * n
        self._end = list(range(n))
        self._anchors: dict[str, int] = {}
        for i in range(n - 1, -1, -1):
            self._count(i)
        for i, el in enumerate(self.elements):
            if isinstance(el.tag, str):
                for key in (el.get("id"), el.get("name") if el.tag == "a" else None):
                    if key:
                        self._anchors.setdefault(key, i)

    def _count(self, i: int) -> None:
        el = self.elements[i]
        if not isinstance(el.tag, str) or el.tag in _UNREAD:
            return
        total = letters(el.text or "")
        for child in el:
            c = self._at[id(child)]
            total += self._letters[c] + letters(child.tail or "")
            self._link_letters[i] += self._link_letters[c]
            self._links[i] += self._links[c]
            self._internal[i] += self._internal[c]
            if self._first_link[i] < 0:
                self._first_link[i] = self._first_link[c]
            self._end[i] = self._end[c]
        self._letters[i] = total
        href = el.get("href") if el.tag == "a" else None
        if href is not None:
            self._link_letters[i] += total
            self._links[i] += 1
            self._internal[i] += is_internal(href)
            self._first_link[i] = i

    def at(self, el: etree._Element) -> int:
        """The element's place in document order."""
        return self._at[id(el)]

    def end(self, el: etree._Element) -> int:
        """The place of the element's last descendant (its own when it has none)."""
        return self._end[self._at[id(el)]]

    def letters(self, el: etree._Element) -> int:
        """The letters of the element's text."""
        return self._letters[self._at[id(el)]]

    def links(self, el: etree._Element) -> int:
        """How many links (``a`` with an ``href``) the element holds, itself included."""
        return self._links[self._at[id(el)]]

    def internal_links(self, el: etree._Element) -> int:
        """How many of the element's links lead into the manual."""
        return self._internal[self._at[id(el)]]

    def first_link(self, el: etree._Element) -> etree._Element | None:
        """The element's first link in document order."""
        at = self._first_link[self._at[id(el)]]
        return self.elements[at] if at >= 0 else None

    def anchor(self, key: str) -> etree._Element | None:
        """The first element the page names ``key`` (its ``id``, or an ``a``'s ``name``)."""
        at = self._anchors.get(key)
        return self.elements[at] if at is not None else None

    def link_share(self, el: etree._Element) -> float:
        """The share of the element's letters that are link text."""
        i = self._at[id(el)]
        return self._link_letters[i] / self._letters[i] if self._letters[i] else 0.0
