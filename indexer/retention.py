"""Retention: keep the last N revisions of each document, and what reviews still need.

A superseded revision is kept while it is one of the document's last ``keep_revisions``
(setting, default 10; the served one counts) or while an open review or a correction pins it
(``HistoryTable.pinned_builds``). Everything else goes: its builds row (the extracted text),
its nodes, and any vector no kept build references, from SQLite's copies and the vector store
alike, so ``doctor`` finds both in agreement. Builds that failed are dropped too. A pruned
revision is remembered, so that asking for it again answers 410 Gone, not 404.

The plan is pure (what would go, and why the rest stays); :func:`prune` carries it out. The
ingest prunes the documents it published; ``overstory prune`` prunes every document.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from indexer.store.catalog import Catalog
from indexer.store.vectors import VectorStore


@dataclass(frozen=True, kw_only=True)
class Dropped:
    """A revision the plan drops."""

    doc_id: str
    revision: str
    build_id: int
    ingested_at: float | None
    status: str


@dataclass(frozen=True, kw_only=True)
class Kept:
    """A superseded revision a pin keeps beyond the last N (``correction``, ``open review``)."""

    doc_id: str
    revision: str
    build_id: int
    reason: str


@dataclass(kw_only=True)
class PrunePlan:
    """What pruning drops and what it keeps beyond the served revisions."""

    keep_revisions: int
    dropped: list[Dropped] = field(default_factory=list)
    pinned: list[Kept] = field(default_factory=list)


@dataclass(kw_only=True)
class PruneReport:
    """What a prune did (or, for a dry run, would do)."""

    dry_run: bool
    keep_revisions: int
    dropped: list[Dropped] = field(default_factory=list)
    pinned: list[Kept] = field(default_factory=list)
    nodes_deleted: int = 0
    vectors_deleted: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    freed_pages_bytes: int = 0
    vacuumed: bool = False

    def to_json(self) -> dict[str, Any]:
        """The JSON of ``overstory prune --json``."""
        out = asdict(self)
        out["revisions_dropped"] = len(self.dropped)
        out["bytes_reclaimed"] = max(0, self.bytes_before - self.bytes_after)
        return out


def plan_prune(catalog: Catalog, *, keep: int, doc_ids: Iterable[str] | None = None) -> PrunePlan:
    """Which revisions go: beyond the last ``keep`` of each document, unpinned, not served."""
    plan = PrunePlan(keep_revisions=keep)
    wanted = (
        sorted(set(doc_ids)) if doc_ids is not None else catalog.history.documents_with_builds()
    )
    for doc_id in wanted:
        builds = catalog.history.all_builds(doc_id)
        done = [b for b in builds if b.status in ("complete", "superseded")]
        recent = {b.build_id for b in done[-keep:]}
        pins = catalog.history.pinned_builds(doc_id)
        for b in builds:
            if b.served or b.status == "building":
                continue
            if b.status == "failed" or b.build_id not in recent:
                if b.build_id in pins and b.status != "failed":
                    plan.pinned.append(
                        Kept(
                            doc_id=doc_id,
                            revision=b.revision,
                            build_id=b.build_id,
                            reason=pins[b.build_id],
                        )
                    )
                    continue
                plan.dropped.append(
                    Dropped(
                        doc_id=doc_id,
                        revision=b.revision,
                        build_id=b.build_id,
                        ingested_at=b.completed_at,
                        status=b.status,
                    )
                )
    return plan


def prune(
    catalog: Catalog,
    vectors: VectorStore,
    plan: PrunePlan,
    *,
    store: Path,
    dry_run: bool = False,
    vacuum: bool = False,
) -> PruneReport:
    """Carry out a plan (the caller holds the store's ingest lock).

    Args:
        store: The store folder, whose size is reported before and after.
        dry_run: Report the plan, change nothing.
        vacuum: Give the freed pages back to the file system (rewrites the catalog file).
    """
    report = PruneReport(
        dry_run=dry_run,
        keep_revisions=plan.keep_revisions,
        dropped=plan.dropped,
        pinned=plan.pinned,
        bytes_before=folder_bytes(store),
    )
    if dry_run or not plan.dropped:
        report.bytes_after = report.bytes_before
        return report
    _, _, free_before = catalog.history.file_pages()
    stale: set[str] = set()
    for d in plan.dropped:
        gone = catalog.history.drop_build(
            d.build_id,
            doc_id=d.doc_id,
            revision=d.revision,
            ingested_at=d.ingested_at,
            completed=d.status != "failed",
        )
        report.nodes_deleted += gone.nodes
        stale.update(gone.vector_ids)
    if stale:
        vectors.delete(sorted(stale))
        report.vectors_deleted = len(stale)
    page, _, free_after = catalog.history.file_pages()
    report.freed_pages_bytes = max(0, free_after - free_before) * page
    if vacuum:
        catalog.history.vacuum()
        report.vacuumed = True
    report.bytes_after = folder_bytes(store)
    return report


def folder_bytes(folder: Path) -> int:
    """The size of the files below a folder.

    The store is live while it is measured: a query may publish its BM25 index (renaming a
    temporary folder) and a sweep may remove an old one, so what vanishes meanwhile counts 0.
    """
    total = 0
    for parent, _dirs, files in os.walk(folder):  # os.walk skips a folder it cannot list
        for name in files:
            try:
                total += os.stat(os.path.join(parent, name), follow_symlinks=False).st_size
            except FileNotFoundError:
                continue
    return total
