"""A document's revisions as a list: hash, when ingested, counts, and what changed in one line.

The line is the diff against the revision before it, computed once per revision and stored (a
build never changes after it is published): "2 changed, 1 added (5.7 Coupling inspection)".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from indexer.diff import diff_builds
from indexer.errors import NotFoundError
from indexer.store.catalog import Catalog
from indexer.store.records import BuildInfo

_NAMED = 2  # headings named in the line, per kind


@dataclass(frozen=True, kw_only=True)
class RevisionInfo:
    """One kept revision of a document."""

    doc_id: str
    revision: str
    build_id: int
    ingested_at: float | None
    source: str
    served: bool
    sections: int
    passages: int
    summaries: int
    previous: str | None
    changes: str
    change_counts: dict[str, int]
    pinned: str | None

    def to_json(self) -> dict[str, Any]:
        """The JSON of one entry of ``overstory revisions --json``."""
        return asdict(self)


def list_revisions(catalog: Catalog, doc_id: str) -> list[RevisionInfo]:
    """The kept revisions of a document, oldest first.

    Raises:
        NotFoundError: No such document.
    """
    builds = catalog.revisions(doc_id)
    if not builds:
        raise NotFoundError(f"no document {doc_id!r}", detail={"doc_id": doc_id})
    doc = catalog.document(doc_id)
    source = doc["source"] if doc is not None else doc_id
    counts = catalog.history.counts(b.build_id for b in builds)
    lines = change_lines(catalog, builds)
    pins = catalog.history.pinned_builds(doc_id)
    out = []
    for b in builds:
        c = counts.get(b.build_id)
        previous, line, by_kind = lines[b.build_id]
        out.append(
            RevisionInfo(
                doc_id=doc_id,
                revision=b.revision,
                build_id=b.build_id,
                ingested_at=b.completed_at,
                source=source,
                served=b.served,
                sections=c.sections if c else 0,
                passages=c.passages if c else 0,
                summaries=c.summaries if c else 0,
                previous=previous,
                changes=line,
                change_counts=by_kind,
                pinned=pins.get(b.build_id),
            )
        )
    return out


def change_lines(
    catalog: Catalog, builds: list[BuildInfo]
) -> dict[int, tuple[str | None, str, dict[str, int]]]:
    """Each build's one-line change against the kept build before it (stored once made)."""
    stored = catalog.history.change_lines(b.build_id for b in builds)
    for before, build in zip([None, *builds[:-1]], builds, strict=True):
        if build.build_id in stored:
            continue
        if before is None:
            entry: tuple[str | None, str, dict[str, int]] = (None, "first revision", {})
        else:
            diff = diff_builds(catalog, build.doc_id, before.build_id, build.build_id)
            entry = (before.revision, one_line(diff.to_json()), diff.counts())
        catalog.history.put_change_line(
            build.build_id, previous=entry[0], line=entry[1], counts=entry[2]
        )
        stored[build.build_id] = entry
    return stored


def one_line(diff: dict[str, Any]) -> str:
    """What a diff holds, in one line: counts by kind with the first headings of each."""
    parts = []
    for kind, n in diff["summary"].items():
        if not n:
            continue
        names = [
            (c["heading_path"] or ["(document)"])[-1]
            for c in diff["changes"]
            if c["change"] == kind
        ]
        shown = "; ".join(names[:_NAMED]) + ("; …" if len(names) > _NAMED else "")
        parts.append(f"{n} {kind} ({shown})")
    return ", ".join(parts) if parts else "no section changed"


def changes_since(catalog: Catalog, since: float) -> list[dict[str, Any]]:
    """Documents with revisions ingested at or after ``since`` (epoch seconds), each with
    those revisions and their one-line changes, newest document change first."""
    by_doc: dict[str, list[int]] = {}
    for row in catalog.history.changed_since(since):
        by_doc.setdefault(row["doc_id"], []).append(int(row["build_id"]))
    out: list[tuple[float, dict[str, Any]]] = []
    for doc_id, new_ids in by_doc.items():
        builds = catalog.revisions(doc_id)
        lines = change_lines(catalog, builds)
        doc = catalog.document(doc_id)
        fresh = [b for b in builds if b.build_id in set(new_ids)]
        latest = max((b.completed_at or 0.0 for b in fresh), default=0.0)
        out.append(
            (
                latest,
                {
                    "doc_id": doc_id,
                    "source": doc["source"] if doc is not None else doc_id,
                    "served": doc["revision"] if doc is not None else None,
                    "revisions": [
                        {
                            "revision": b.revision,
                            "ingested_at": b.completed_at,
                            "previous": lines[b.build_id][0],
                            "changes": lines[b.build_id][1],
                        }
                        for b in fresh
                    ],
                },
            )
        )
    out.sort(key=lambda pair: -pair[0])
    return [doc for _, doc in out]
