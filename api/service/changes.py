"""What changed in a document: the one entry point agents (the MCP ``what_changed`` tool) use.

Today it answers from the section diff of ``GET /v1/documents/{doc_id}/diff``
(:func:`indexer.diff.diff_revisions`): the newest revision against the one before by default,
or two given revisions, optionally narrowed to one section. Keeping every caller behind this
one function lets it move to a richer comparison without changing them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from indexer.diff import diff_revisions
from indexer.doc_ids import normalize_doc_id
from indexer.store.catalog import Catalog
from retriever.answers import SectionChange


class DiffPublic(BaseModel):
    """``GET /v1/documents/{doc_id}/diff``."""

    doc_id: str
    from_: str = Field(alias="from", serialization_alias="from")
    to: str
    summary: dict[str, int]
    changes: list[SectionChange]

    model_config = ConfigDict(populate_by_name=True)


class ScopedDiff(DiffPublic):
    """``what_changed``: the comparison, and the heading text it was cut to."""

    section: str | None = Field(
        default=None, description="Only changes under headings containing this (when given)."
    )


def what_changed(
    catalog: Catalog,
    doc_id: str,
    *,
    from_revision: str | None = None,
    to_revision: str | None = None,
    section: str | None = None,
) -> DiffPublic:
    """The comparison of two revisions of ``doc_id`` (the diff route's answer).

    Args:
        catalog: The store.
        doc_id: The document.
        from_revision: Older revision (hash or prefix); default the one before the newest.
        to_revision: Newer revision (hash or prefix); default the newest.
        section: Keep only the changes inside sections whose heading contains this text
            (case-insensitive; the old heading of a moved section counts too). The result
            then names it as ``section`` and counts only those changes.

    Raises:
        NotFoundError: No such document or revision.
    """
    doc_id = normalize_doc_id(doc_id)
    result = diff_revisions(
        catalog, doc_id, from_revision=from_revision, to_revision=to_revision
    ).to_json()
    if section is None or not section.strip():
        return DiffPublic.model_validate(result)
    wanted = section.strip().casefold()
    kept = [c for c in result["changes"] if _inside(c, wanted)]
    counts = {k: 0 for k in result["summary"]}
    for change in kept:
        counts[change["change"]] += 1
    scoped = {**result, "section": section.strip(), "summary": counts, "changes": kept}
    return ScopedDiff.model_validate(scoped)


def _inside(change: dict[str, Any], wanted: str) -> bool:
    paths = [change["heading_path"], change.get("old_heading_path") or []]
    return any(wanted in heading.casefold() for path in paths for heading in path)
