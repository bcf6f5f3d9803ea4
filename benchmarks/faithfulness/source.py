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
}


class _Paragraphs(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[str] = []
        self._depth = 0
        self._skip = 0
        self._parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        elif tag == "p":
            if self._depth:
                self._flush()
            self._depth = 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)
        elif tag == "p" and self._depth:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self._depth and not self._skip:
            self._parts.append(data)

    def _flush(self) -> None:
        text = " ".join("".join(self._parts).split())
        if text:
            self.paragraphs.append(text)
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


_CACHE: dict[str, list[str]] = {}


def paragraphs(path: str) -> list[str]:
    """The paragraphs of one HTML file (gzip-compressed or not), cached per run."""
    if path not in _CACHE:
        ensure_package(path)
        raw = Path(path).read_bytes()
        if path.endswith(".gz"):
            raw = gzip.decompress(raw)
        parser = _Paragraphs()
        parser.feed(raw.decode("utf-8", errors="replace"))
        parser.close()
        _CACHE[path] = parser.paragraphs
    return _CACHE[path]


def passage(path: str, start: int, count: int = 1) -> str:
    """The text of ``count`` paragraphs of ``path`` from index ``start``, joined by blank lines."""
    return "\n\n".join(paragraphs(path)[start : start + count])
