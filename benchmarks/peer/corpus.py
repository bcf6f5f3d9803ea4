"""The peer benchmark's corpus: chapters of the PostgreSQL 15 manual, its two revisions, and the
same text exported for every system.

The HTML pages come from the Debian package ``postgresql-doc-15`` (installed at benchmark time
when missing; nothing of the manual is in the repository). Each page is one document, converted
with Overstory's own parsers and chunker (:func:`indexer.parsers.registry.parse_bytes`,
:func:`indexer.tree.build_tree` with the default settings): :func:`export` writes every document's
extracted text, its heading sections and its passages to one JSON file, which the peers read, so
the same passage text goes to every system.

Two revisions test re-indexing: ``edit`` changes one value in one passage; ``insertion`` adds one
section of our own wording to the same page (both applied to a copy).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.corpora import CACHE, install_packages

PACKAGE = "postgresql-doc-15"
HTML = Path("/usr/share/doc/postgresql-doc-15/html")
FOLDER = "postgresql"
PAGES: tuple[str, ...] = (
    # Chapter 20, Server Configuration (every section page)
    *(
        f"runtime-config-{name}.html"
        for name in (
            "file-locations",
            "connection",
            "resource",
            "wal",
            "replication",
            "query",
            "logging",
            "statistics",
            "autovacuum",
            "client",
            "locks",
            "compatible",
            "error-handling",
            "preset",
            "custom",
            "developer",
            "short",
        )
    ),
    # Chapter 21 (two pages), 25.1, Chapter 26 and two pages of Chapter 30
    "auth-pg-hba-conf.html",
    "auth-password.html",
    "routine-vacuuming.html",
    "backup-dump.html",
    "backup-file.html",
    "continuous-archiving.html",
    "wal-async-commit.html",
    "wal-configuration.html",
)

EDITED_PAGE = "runtime-config-resource.html"
EDIT_OLD = "The default is typically 128 megabytes"
EDIT_NEW = "The default is typically 256 megabytes"
INSERT_BEFORE = '<div class="sect2" id="RUNTIME-CONFIG-RESOURCE-DISK">'
INSERTED_TITLE = "20.4.1.1. Memory Accounting Reports"
INSERTED_SECTION = (
    '<div class="sect3" id="BENCH-MEMORY-ACCOUNTING"><div class="titlepage"><div><div>'
    f'<h4 class="title">{INSERTED_TITLE}</h4></div></div></div>'
    "<p>A memory accounting report lists, for every server process, how much of its work "
    "memory and maintenance work memory it holds at the moment of the report, grouped by the "
    "kind of operation that asked for it: sorts, hash tables, vacuum and index builds.</p>"
    "<p>The report is written to the server log every 90 seconds while any process holds more "
    "than half of its allowance. Writing it costs one pass over the process table, so on a "
    "server with thousands of connections it should be switched off outside investigations.</p>"
    "<p>Reports are never sent to clients; only superusers can read them, through the server "
    "log.</p></div>"
)


@dataclass(frozen=True)
class Revision:
    """One state of the corpus: its name and the folder of its files."""

    name: str
    folder: Path


def revisions(base: Path = CACHE / "peer" / "docs") -> list[Revision]:
    """The original pages, the one-passage edit, then the edit plus the inserted section,
    each in its own folder below ``base``.

    Raises:
        benchmarks.corpora.CorpusUnavailable: The package is missing and cannot be installed.
    """
    install_packages({PACKAGE})
    original = _copy(base / "original")
    page = (HTML / EDITED_PAGE).read_text(encoding="utf-8")
    if page.count(EDIT_OLD) != 1 or page.count(INSERT_BEFORE) != 1:
        raise RuntimeError(f"{EDITED_PAGE} changed upstream: the benchmark's edits do not apply")
    edited = page.replace(EDIT_OLD, EDIT_NEW)
    inserted = edited.replace(INSERT_BEFORE, INSERTED_SECTION + INSERT_BEFORE)
    out = [Revision("original", original)]
    for name, text in (("edit", edited), ("insertion", inserted)):
        folder = _copy(base / name)
        (folder / FOLDER / EDITED_PAGE).write_text(text, encoding="utf-8")
        out.append(Revision(name, folder))
    return out


def _copy(root: Path) -> Path:
    """``root/postgresql/<page>`` for every page (copied afresh: the revisions overwrite one)."""
    shutil.rmtree(root, ignore_errors=True)
    (root / FOLDER).mkdir(parents=True)
    for page in PAGES:
        shutil.copyfile(HTML / page, root / FOLDER / page)
    return root


def export(folder: Path, target: Path) -> dict[str, Any]:
    """Write every document of ``folder`` as Overstory converts it (text, sections, passages)."""
    from indexer.parsers.registry import parse_bytes
    from indexer.settings import Settings
    from indexer.sources import discover
    from indexer.tree import build_tree

    settings = Settings(store=target.parent / "unused-store")
    docs = []
    for path, doc_id in discover([folder]):  # the files and doc_ids Overstory's ingest takes
        parsed = parse_bytes(path.read_bytes(), filename=path.name)
        tree = build_tree(
            parsed,
            chunk_tokens=settings.chunk_tokens,
            overlap=settings.chunk_overlap,
            max_chars=settings.chunk_max_chars,
        )
        sections = [
            {
                "heading_path": n.heading_path,
                "level": n.level,
                "char_start": n.char_start,
                "char_end": n.char_end,
                "children": [c.heading_path for c in n.children if not c.is_passage],
            }
            for n in tree.walk()
            if not n.is_passage
        ]
        passages = [
            {
                "id": f"{doc_id}#{i}",
                "text": p.text or "",
                "heading_path": p.heading_path,
                "char_start": p.char_start,
                "char_end": p.char_end,
            }
            for i, p in enumerate(tree.passages())
        ]
        docs.append(
            {"doc_id": doc_id, "text": parsed.text, "sections": sections, "passages": passages}
        )
    corpus = {"documents": docs}
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(corpus), encoding="utf-8")
    return corpus
