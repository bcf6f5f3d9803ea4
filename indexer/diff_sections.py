"""The headed sections of one build, as the diff compares them, and how two bodies differ.

A section's *body* is its own text (the passages directly below its heading, a cluster's
passages included), not its subsections': an edit in 5.4.2 changes 5.4.2, not 5 Maintenance.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from indexer.hashing import hash_bytes, normalize
from indexer.store.backends import Row
from indexer.store.catalog import Catalog

HEADING_LEVELS = ("document", "chapter", "section")


@dataclass(frozen=True, kw_only=True)
class Passage:
    """One passage of a section, as a quote."""

    node_id: str
    text: str
    char_start: int
    char_end: int
    pages: list[int] | None


@dataclass(kw_only=True)
class Section:
    """One headed node of a build."""

    node_id: str
    path: tuple[str, ...]
    title: str | None
    level: str
    parent: tuple[str, ...] | None
    ordinal: int
    hash: str
    summary_key: str | None
    pages: list[int] | None
    body: str = ""
    passages: list[Passage] = field(default_factory=list)

    @cached_property
    def body_hash(self) -> str:
        """The hash of the whitespace-collapsed body (``str.split``: a regex over every body
        of a large manual costs more than the rest of the diff)."""
        return hash_bytes(" ".join(self.body.split()).encode("utf-8"))


def load_sections(catalog: Catalog, build_id: int) -> dict[tuple[str, ...], Section]:
    """A build's headed sections by heading path, in document order."""
    rows = catalog.nodes_of_build(build_id)
    text = catalog.build_text(build_id)
    by_id: dict[str, Row] = {r["node_id"]: r for r in rows}
    out: dict[tuple[str, ...], Section] = {}
    section_of: dict[str, Section] = {}
    for r in rows:
        if r["level"] not in HEADING_LEVELS:
            continue
        parent = _heading_above(by_id, r["parent_id"])
        above = section_of[parent].path if parent in section_of else None
        path = tuple(json.loads(r["heading_path"])) if above is None else above + (r["title"],)
        path = _unique(path, out)
        sec = Section(
            node_id=r["node_id"],
            path=path,
            title=r["title"],
            level=r["level"],
            parent=above,
            ordinal=int(r["ordinal"]),
            hash=r["hash"],
            summary_key=r["summary_key"],
            pages=_pages(r),
        )
        out[path] = sec
        section_of[r["node_id"]] = sec
    for r in rows:
        if r["level"] == "passage" and r["parent_id"]:
            owner = section_of.get(_heading_above(by_id, r["parent_id"]) or "")
            if owner is not None:
                owner.passages.append(
                    Passage(
                        node_id=r["node_id"],
                        text=r["text"] or "",
                        char_start=int(r["char_start"]),
                        char_end=int(r["char_end"]),
                        pages=_pages(r),
                    )
                )
    for sec in section_of.values():
        if sec.passages:
            start = min(p.char_start for p in sec.passages)
            end = max(p.char_end for p in sec.passages)
            sec.body = text[start:end]
    return out


def _unique(path: tuple[str, ...], taken: dict[tuple[str, ...], Section]) -> tuple[str, ...]:
    """A second "Notes" under one parent is "Notes [2]": repeated headings compare in order."""
    if path not in taken or not path:
        return path
    n = 2
    while path[:-1] + (f"{path[-1]} [{n}]",) in taken:
        n += 1
    return path[:-1] + (f"{path[-1]} [{n}]",)


def _heading_above(by_id: dict[str, Row], node_id: str | None) -> str | None:
    """The nearest headed node at or above ``node_id``: clusters are skipped (passages under
    a cluster belong to the heading above them)."""
    current = node_id
    while current is not None and current in by_id:
        row = by_id[current]
        if row["level"] in HEADING_LEVELS:
            return current
        current = row["parent_id"]
    return None


def _pages(row: Row) -> list[int] | None:
    return [row["page_start"], row["page_end"]] if row["page_start"] is not None else None


def text_diff(old: str, new: str) -> str:
    """A unified diff of two bodies, sentence by sentence."""
    from indexer.summarizers.sentences import split_sentences

    lines = difflib.unified_diff(
        split_sentences(old),
        split_sentences(new),
        fromfile="before",
        tofile="after",
        lineterm="",
        n=1,
    )
    return "\n".join(lines)


def changed_passages(old: Section, new: Section) -> tuple[list[Passage], list[Passage]]:
    """The passages of each side that hold what differs (the rest are equal on both sides)."""
    a = [normalize(p.text) for p in old.passages]
    b = [normalize(p.text) for p in new.passages]
    before: list[Passage] = []
    after: list[Passage] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            before.extend(old.passages[i1:i2])
            after.extend(new.passages[j1:j2])
    return before, after


def similarity(a: str, b: str) -> float:
    """How alike two bodies are (0 to 1), on their words."""
    wa, wb = normalize(a).split(), normalize(b).split()
    if not wa and not wb:
        return 1.0
    return difflib.SequenceMatcher(a=wa, b=wb, autojunk=False).ratio()


def passage_json(p: Passage, *, revision: str, heading_path: tuple[str, ...]) -> dict[str, Any]:
    """A passage as a labelled quote of one revision."""
    return {
        "node_id": p.node_id,
        "label": "quote",
        "revision": revision,
        "heading_path": list(heading_path),
        "text": p.text,
        "char_start": p.char_start,
        "char_end": p.char_end,
        "pages": p.pages,
    }


_ITEM = re.compile(r"^\s*(\||[-*•>+]\s|\d+[.)]\s|[a-z][.)]\s)")


def sentences(text: str) -> list[str]:
    """A body's sentences: a table row or a list item is a unit of its own, the lines of a
    wrapped paragraph are joined first."""
    from indexer.summarizers.sentences import split_sentences

    blocks: list[str] = []
    joinable = False
    for line in text.splitlines():
        if not line.strip():
            joinable = False
            continue
        item = bool(_ITEM.match(line))
        if joinable and not item:
            blocks[-1] += " " + line.strip()
        else:
            blocks.append(line.strip())
        joinable = not line.lstrip().startswith("|")
    return [
        s
        for block in blocks
        for s in split_sentences(block)
        if any(ch.isalpha() for ch in s)  # not a list item's bare number
    ]


def changed_sentences(old: str, new: str) -> tuple[list[str], list[str]]:
    """The sentences only the old body has, and those only the new one has, in order."""
    a, b = sentences(old), sentences(new)
    gone: list[str] = []
    came: list[str] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            gone.extend(a[i1:i2])
            came.extend(b[j1:j2])
    return gone, came
