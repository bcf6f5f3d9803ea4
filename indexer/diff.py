"""Compare two revisions of a document: sections added, removed, moved and changed.

"What changed between revisions" is a comparison, not a retrieval: it is answered from the
stored trees of both revisions. Sections are matched by heading path; a section whose path is
new but whose content hash existed elsewhere in the old revision has moved.
"""

from __future__ import annotations

import difflib
import json
import sqlite3
from dataclasses import asdict, dataclass, field
from typing import Any

from indexer.errors import NotFoundError
from indexer.store.catalog import Catalog

_HEADING_LEVELS = ("document", "chapter", "section")


@dataclass
class SectionChange:
    """One section that differs between the two revisions."""

    change: str  # added | removed | moved | changed
    heading_path: list[str]
    old_heading_path: list[str] | None = None
    pages: list[int] | None = None
    diff: str | None = None


@dataclass
class RevisionDiff:
    """The comparison of two revisions of one document."""

    doc_id: str
    from_revision: str
    to_revision: str
    changes: list[SectionChange] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form, with counts per kind of change."""
        counts = {k: 0 for k in ("added", "removed", "moved", "changed")}
        for c in self.changes:
            counts[c.change] += 1
        return {
            "doc_id": self.doc_id,
            "from": self.from_revision,
            "to": self.to_revision,
            "summary": counts,
            "changes": [asdict(c) for c in self.changes],
        }


def revisions(catalog: Catalog, doc_id: str) -> list[dict[str, Any]]:
    """Completed revisions of a document, oldest first."""
    return [
        {
            "build_id": b.build_id,
            "revision": b.revision,
            "status": b.status,
            "completed_at": b.completed_at,
        }
        for b in catalog.revisions(doc_id)
    ]


def _build_for(catalog: Catalog, doc_id: str, revision: str | None, *, default: int) -> int:
    revs = revisions(catalog, doc_id)
    if not revs:
        raise NotFoundError(f"no document {doc_id!r}", detail={"doc_id": doc_id})
    if revision is None:
        return int(revs[default]["build_id"])
    for r in reversed(revs):
        if r["revision"].startswith(revision):
            return int(r["build_id"])
    raise NotFoundError(
        f"{doc_id!r} has no revision {revision!r}",
        detail={"revisions": [r["revision"] for r in revs]},
    )


def _sections(catalog: Catalog, build_id: int) -> dict[tuple[str, ...], dict[str, Any]]:
    rows = catalog.nodes_of_build(build_id)
    text = catalog.build_text(build_id)
    by_id: dict[str, sqlite3.Row] = {r["node_id"]: r for r in rows}
    own: dict[str, tuple[int, int]] = {}
    for r in rows:
        if r["level"] == "passage" and r["parent_id"]:
            parent = r["parent_id"]
            # Passages under a cluster belong to the heading node above the clusters.
            while by_id[parent]["level"] == "cluster" and by_id[parent]["parent_id"]:
                parent = by_id[parent]["parent_id"]
            start, end = own.get(parent, (r["char_start"], r["char_end"]))
            own[parent] = (min(start, r["char_start"]), max(end, r["char_end"]))
    out: dict[tuple[str, ...], dict[str, Any]] = {}
    for r in rows:
        if r["level"] not in _HEADING_LEVELS:
            continue
        path = tuple(json.loads(r["heading_path"]))
        pages = [r["page_start"], r["page_end"]] if r["page_start"] is not None else None
        out[path] = {
            "hash": r["hash"],
            "body": text[slice(*own.get(r["node_id"], (0, 0)))],
            "pages": pages,
        }
    return out


def diff_revisions(
    catalog: Catalog,
    doc_id: str,
    *,
    from_revision: str | None = None,
    to_revision: str | None = None,
) -> RevisionDiff:
    """Sections added, removed, moved and changed between two revisions.

    Args:
        catalog: The store.
        doc_id: The document.
        from_revision: A revision hash or prefix; default the one before the newest.
        to_revision: A revision hash or prefix; default the newest.
    """
    revs = revisions(catalog, doc_id)
    old_id = _build_for(catalog, doc_id, from_revision, default=-2 if len(revs) > 1 else -1)
    new_id = _build_for(catalog, doc_id, to_revision, default=-1)
    old, new = _sections(catalog, old_id), _sections(catalog, new_id)
    rev = {r["build_id"]: r["revision"] for r in revs}
    result = RevisionDiff(doc_id, rev[old_id], rev[new_id])
    old_by_hash = {v["hash"]: k for k, v in old.items() if k not in new}
    moved_from: set[tuple[str, ...]] = set()
    for path, sec in new.items():
        if path in old:
            if old[path]["body"] != sec["body"]:
                result.changes.append(
                    SectionChange(
                        "changed",
                        list(path),
                        pages=sec["pages"],
                        diff=_text_diff(old[path]["body"], sec["body"]),
                    )
                )
        elif sec["hash"] in old_by_hash:
            source = old_by_hash[sec["hash"]]
            moved_from.add(source)
            result.changes.append(
                SectionChange(
                    "moved", list(path), old_heading_path=list(source), pages=sec["pages"]
                )
            )
        else:
            result.changes.append(
                SectionChange("added", list(path), pages=sec["pages"], diff=sec["body"][:2000])
            )
    for path, sec in old.items():
        if path not in new and path not in moved_from:
            result.changes.append(
                SectionChange("removed", list(path), pages=sec["pages"], diff=sec["body"][:2000])
            )
    return result


def _text_diff(old: str, new: str) -> str:
    lines = difflib.unified_diff(
        _sentences(old), _sentences(new), fromfile="before", tofile="after", lineterm="", n=1
    )
    return "\n".join(lines)


def _sentences(text: str) -> list[str]:
    from indexer.summarizers.sentences import split_sentences

    return split_sentences(text)
