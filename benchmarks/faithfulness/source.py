"""Read the source passages of the planted-fault triples from installed Debian manuals.

The triples never contain manual text: each names a file of a Debian documentation package, the
index of its first paragraph, how many paragraphs and a hash of their text. A paragraph is the
whitespace-collapsed text of one ``<p>`` element (what a manual's prose is made of).
"""

from __future__ import annotations

import gzip
import hashlib
import subprocess
from html.parser import HTMLParser
from pathlib import Path

PACKAGES = {
    "/usr/share/doc/bind9-doc/": "bind9-doc",
    "/usr/share/doc/postgresql-doc-15/": "postgresql-doc-15",
    "/usr/share/doc/bash/": "bash-doc",
    "/usr/share/doc/debian-reference-en/": "debian-reference-en",
    "/usr/share/doc/debian-reference-common/": "debian-reference-en",
    "/usr/share/doc/valgrind/": "valgrind",
    "/usr/share/doc/cmake-doc/": "cmake-doc",
    "/usr/share/doc/apache2-doc/": "apache2-doc",
    "/usr/share/doc/sqlite3/": "sqlite3-doc",
    "/usr/share/doc/git-doc/": "git-doc",
    "/usr/share/doc/python3.11/": "python3.11-doc",
    "/usr/share/doc/postfix/": "postfix-doc",
    "/usr/share/doc/ffmpeg/": "ffmpeg-doc",
    "/usr/share/doc/exim4-doc-html/": "exim4-doc-html",
    "/usr/share/R/doc/manual/": "r-doc-html",
    "/usr/share/doc/zsh-doc/": "zsh-doc",
    "/usr/share/doc/rsyslog-doc/": "rsyslog-doc",
}


def _heading(tag: str) -> bool:
    return len(tag) == 2 and tag[0] == "h" and tag[1] in "123456"


class _Paragraphs(HTMLParser):
    """The ``<p>`` paragraphs of a page, each with what labels it: the headings down to it
    (``<h1>``…``<h6>``) and the term of the definition it belongs to (``<dt>``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[str] = []
        self.labels: list[list[str]] = []
        self._depth = 0
        self._skip = 0
        self._parts: list[str] = []
        self._heads: list[tuple[int, str]] = []  # (level, text) down to here
        self._term: str | None = None
        self._outer: list[str | None] = []  # the terms of the lists a nested list sits in
        self._label: tuple[str, int] | None = None  # ("h" | "dt", level) being read
        self._label_parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        elif tag == "p":
            if self._depth:
                self._flush()
            self._depth = 1
        elif _heading(tag):
            self._label, self._label_parts = ("h", int(tag[1])), []
        elif tag == "dt":
            self._label, self._label_parts = ("dt", 0), []
        elif tag == "dl":
            self._outer.append(self._term)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)
        elif tag == "p" and self._depth:
            self._flush()
        elif self._label and (tag == "dt" or _heading(tag)):
            text = " ".join("".join(self._label_parts).split()).rstrip("¶ ").strip()
            kind, level = self._label
            self._label = None
            if kind == "h" and text:
                self._heads = [h for h in self._heads if h[0] < level] + [(level, text)]
                self._term = None
            elif kind == "dt" and text:
                self._term = text
        elif tag == "dl":
            # A list nested in a definition ends, and the definition goes on under its term.
            self._term = self._outer.pop() if self._outer else None

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._label:
            self._label_parts.append(data)
        if self._depth:
            self._parts.append(data)

    def _flush(self) -> None:
        text = " ".join("".join(self._parts).split())
        if text:
            self.paragraphs.append(text)
            self.labels.append([h for _, h in self._heads] + ([self._term] if self._term else []))
        self._parts = []
        self._depth = 0


def text_hash(text: str) -> str:
    """A short hash of a passage, to notice a package version whose text moved."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def ensure_package(path: str) -> None:
    """Install the Debian package that ships ``path`` when it is missing (needs root)."""
    if Path(path).exists():
        return
    package = next((p for prefix, p in PACKAGES.items() if path.startswith(prefix)), None)
    if package is None:
        raise FileNotFoundError(path)
    subprocess.run(["apt-get", "update", "-qq"], check=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", package], check=True)


_CACHE: dict[str, _Paragraphs] = {}


def _parsed(path: str) -> _Paragraphs:
    if path not in _CACHE:
        ensure_package(path)
        raw = Path(path).read_bytes()
        if path.endswith(".gz"):
            raw = gzip.decompress(raw)
        parser = _Paragraphs()
        parser.feed(raw.decode("utf-8", errors="replace"))
        parser.close()
        _CACHE[path] = parser
    return _CACHE[path]


def paragraphs(path: str) -> list[str]:
    """The paragraphs of one HTML file (gzip-compressed or not), cached per run."""
    return _parsed(path).paragraphs


def labels(path: str, start: int, count: int = 1) -> list[str]:
    """What labels ``count`` paragraphs from ``start``: the headings down to them and the
    terms they define, in order, each once. The lint in the service checks a summary against
    its node's headings as well as its passages, so the benchmark passes them too."""
    out: list[str] = []
    for row in _parsed(path).labels[start : start + count]:
        out += [label for label in row if label not in out]
    return out


def passage(path: str, start: int, count: int = 1) -> str:
    """The text of ``count`` paragraphs of ``path`` from index ``start``, joined by blank lines."""
    return "\n\n".join(paragraphs(path)[start : start + count])
