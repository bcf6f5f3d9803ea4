"""The judged nodes: the manuals ingested once with the product's defaults, and a seeded sample.

Per manual: its document nodes (up to :data:`DOCUMENTS`), up to :data:`CHAPTERS` chapters and up
to :data:`SECTIONS` sections, drawn in an order fixed by a seeded hash of where each node is
(document and heading path), so that the same tree always gives the same sample whatever the
summarizer writes. A node is identified across runs by that place, and its judgments by the hash
of its source and of the summary text (``judging.py``).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.corpora import CACHE, _indexer_fingerprint
from benchmarks.summaries.manuals import MANUALS, Manual, prepared
from indexer.hashing import hash_parts

SEED = "summaries-2026-12"
DOCUMENTS = 3
CHAPTERS = 5
SECTIONS = 10
STORE = CACHE / "summaries" / "store"


@dataclass
class Node:
    """One judged node of a served tree.

    Attributes:
        manual: Its manual.
        doc_id: Its document.
        level: ``document``, ``chapter`` or ``section``.
        heading_path: Its place.
        place: A stable id from the manual, document, level and heading path.
        source_hash: Its Merkle hash (the source text below it).
        text: The document's text (spans are offsets into it).
        char_start: Where the node starts in ``text``.
        char_end: Where it ends.
        tree: The node's JSON as ``overstory tree --json`` gives it (children nested).
    """

    manual: Manual
    doc_id: str
    level: str
    heading_path: tuple[str, ...]
    place: str
    source_hash: str
    text: str
    char_start: int
    char_end: int
    tree: dict[str, Any] = field(repr=False)

    @property
    def source(self) -> str:
        """The node's own text (its slice of the document)."""
        return self.text[self.char_start : self.char_end]


def store() -> Path:
    """The store holding every manual, ingested with the product's defaults (rebuilt when the
    indexer's code or the manual list changes)."""
    from indexer.index import Index
    from indexer.settings import Settings

    stamp = json.dumps({"indexer": _indexer_fingerprint(), "manuals": [repr(m) for m in MANUALS]})
    mark = STORE / "bench-stamp.json"
    if mark.exists() and (mark.read_text() == stamp or os.environ.get("OVERSTORY_BENCH_STALE")):
        return STORE  # OVERSTORY_BENCH_STALE=1: read the store as built (while debugging)
    building = STORE.with_name(STORE.name + ".new")
    shutil.rmtree(building, ignore_errors=True)
    index = Index(Settings(store=building))
    try:
        for manual in MANUALS:
            paths = prepared(manual)
            if manual.manual:
                report = index.ingest_paths(paths, manual=True, doc_id=manual.name)
            else:  # each file a document, named by its file name
                report = index.ingest_paths([manual.folder()])
            if report.errors:
                raise RuntimeError(f"ingesting {manual.name} failed: {report.errors}")
    finally:
        index.close()
    (building / mark.name).write_text(stamp)
    shutil.rmtree(STORE, ignore_errors=True)  # replaced only once the new store is whole
    building.rename(STORE)
    return STORE


def _inner(tree: dict[str, Any]) -> Iterator[dict[str, Any]]:
    if tree["level"] != "passage":
        yield tree
        for child in tree.get("children", []):
            yield from _inner(child)


def _order(*parts: str) -> str:
    return hash_parts([SEED, *parts])


def sample(manual: Manual, trees: dict[str, dict[str, Any]], texts: dict[str, str]) -> list[Node]:
    """The judged nodes of one manual (its documents' trees and texts by doc_id)."""
    picked: list[Node] = []
    docs = sorted(trees, key=lambda d: _order(manual.name, d))[:DOCUMENTS]
    candidates: dict[str, list[tuple[str, dict[str, Any]]]] = {"chapter": [], "section": []}
    for doc_id in sorted(trees):
        for node in _inner(trees[doc_id]):
            if node["level"] in candidates and node.get("summary"):
                candidates[node["level"]].append((doc_id, node))
    chosen = [(d, trees[d]) for d in docs if trees[d].get("summary")]
    for level, limit in (("chapter", CHAPTERS), ("section", SECTIONS)):
        ranked = sorted(
            candidates[level],
            key=lambda item: _order(manual.name, item[0], json.dumps(item[1]["heading_path"])),
        )
        chosen.extend(ranked[:limit])
    for doc_id, node in chosen:
        path = tuple(node["heading_path"])
        picked.append(
            Node(
                manual=manual,
                doc_id=doc_id,
                level=node["level"],
                heading_path=path,
                place=_order("place", manual.name, doc_id, node["level"], json.dumps(path))[:12],
                source_hash=node["hash"],
                text=texts[doc_id],
                char_start=node["char_start"],
                char_end=node["char_end"],
                tree=node,
            )
        )
    return picked


def judged_nodes(manuals: tuple[Manual, ...] = MANUALS) -> list[Node]:
    """Every judged node of ``manuals``, from the benchmark's store."""
    from indexer.index import Index
    from indexer.settings import Settings

    index = Index(Settings(store=store()))
    try:
        out: list[Node] = []
        served = {d["doc_id"] for d in index.documents()}
        for manual in manuals:
            names = sorted(d for d in served if d == manual.name or _belongs(d, manual))
            trees = {d: index.tree(d) for d in names}
            texts = {d: _text(index, d) for d in names}
            out.extend(sample(manual, trees, texts))
        return out
    finally:
        index.close()


def _belongs(doc_id: str, manual: Manual) -> bool:
    """A document ingested from one of the manual's files (its doc_id is the file's name)."""
    names = {Path(f).name.removesuffix(".gz") for f in manual.files}
    return doc_id in names


def _text(index: Any, doc_id: str) -> str:
    return str(index.catalog.build_text(index.catalog.current_build(doc_id)))
