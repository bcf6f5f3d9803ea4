"""Expert reviews as the served nodes see them: which review applies, and the effective summary.

A review is keyed by ``(doc_id, node hash)``: it holds while the source text below the node is
unchanged, whatever build the node is in. Reviews are only ever added; the latest one of a
``(doc_id, hash)`` is the node's review. What it means for a served node:

- ``corrected`` (or ``approved`` of an earlier correction): the expert's text is the node's
  summary; :func:`corrections` hands it to the ingest so that it also feeds the ancestors;
- ``approved`` / ``rejected`` without a correction: a verdict on one summary text (its cache key);
  when the summary is rewritten (another model, a corrected child) the verdict no longer applies
  and the node is pending again;
- no review for the current hash, but one for the same place (document, level, heading path)
  whose node is gone from the build: the source changed under it. The review is *stale*; the
  node is pending and goes first in the audit queue ("source changed, re-check").

This module only reads; :mod:`api.service.review` writes reviews and
:mod:`api.service.audit_queue` builds the queue.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from indexer.sourced import ResolvedSentence, ResolvedSpan
from indexer.store.backends import Row
from indexer.store.catalog import Catalog
from indexer.store.records import NodeRecord
from indexer.summarizers.support import align_text

REVIEW_STATUSES = ("approved", "corrected", "rejected")
PENDING = "pending"
EXPERT_BACKEND = "expert"


@dataclass(frozen=True)
class Review:
    """One stored review of a summary."""

    review_id: int
    doc_id: str
    node_hash: str
    node_id: str
    heading_path: list[str]
    level: str
    summary_key: str | None
    status: str
    corrected_text: str | None
    note: str | None
    reviewer: str
    flags: list[dict[str, Any]]
    created_at: float

    def to_json(self) -> dict[str, Any]:
        """The review as a JSON-ready dict."""
        return {
            "review_id": self.review_id,
            "doc_id": self.doc_id,
            "node_id": self.node_id,
            "node_hash": self.node_hash,
            "heading_path": self.heading_path,
            "level": self.level,
            "summary_key": self.summary_key,
            "status": self.status,
            "corrected_text": self.corrected_text,
            "note": self.note,
            "reviewer": self.reviewer,
            "flags": self.flags,
            "created_at": self.created_at,
        }


@dataclass(frozen=True)
class ReviewState:
    """What the reviews say about one node of a build.

    Attributes:
        status: ``pending``, ``approved``, ``corrected`` or ``rejected``.
        review: The review that applies to the node's summary now, or None.
        previous: When pending: the latest earlier review of the node (stale, or of a summary
            text since rewritten), or None.
        stale: The source below the node changed since ``previous`` was written.
        reason: Why a node that was reviewed is pending again, for people.
    """

    status: str
    review: Review | None = None
    previous: Review | None = None
    stale: bool = False
    reason: str | None = None

    @property
    def correction(self) -> str | None:
        """The expert's text that replaces the summary, if any."""
        return self.review.corrected_text if self.review is not None else None

    @property
    def latest(self) -> Review | None:
        """The review to show with the node: the one that applies, else the earlier one."""
        return self.review or self.previous


def review_from_row(row: Row) -> Review:
    """A :class:`Review` from a ``reviews`` row."""
    return Review(
        review_id=int(row["review_id"]),
        doc_id=row["doc_id"],
        node_hash=row["node_hash"],
        node_id=row["node_id"],
        heading_path=json.loads(row["heading_path"]),
        level=row["level"],
        summary_key=row["summary_key"],
        status=row["status"],
        corrected_text=row["corrected_text"],
        note=row["note"],
        reviewer=row["reviewer"],
        flags=json.loads(row["flags"] or "[]"),
        created_at=float(row["created_at"]),
    )


def review_states(catalog: Catalog, rows: Sequence[Row]) -> dict[str, ReviewState]:
    """The review state of each inner node in ``rows`` (node rows of any builds), by node id.

    Passages are not reviewed and are left out.
    """
    inner = [r for r in rows if r["level"] != "passage"]
    if not inner:
        return {}
    latest: dict[tuple[str, str], Review] = {}
    by_place: dict[tuple[str, str, str], list[Review]] = defaultdict(list)
    for r in catalog.reviews.of_documents(sorted({r["doc_id"] for r in inner})):
        review = review_from_row(r)
        latest[(review.doc_id, review.node_hash)] = review
        by_place[(review.doc_id, review.level, r["heading_path"])].append(review)
    if not latest:
        return {r["node_id"]: ReviewState(PENDING) for r in inner}
    build_hashes: dict[int, set[str]] = {}

    def hashes_of(build_id: int) -> set[str]:
        if build_id not in build_hashes:
            build_hashes[build_id] = catalog.nodes.inner_hashes(build_id)
        return build_hashes[build_id]

    out: dict[str, ReviewState] = {}
    for r in inner:
        current = latest.get((r["doc_id"], r["hash"]))
        if current is not None:
            out[r["node_id"]] = _state_of(current, r["summary_key"])
            continue
        # Reviews of this place whose node no longer exists: its source changed. (A review whose
        # node is still in the build belongs to that node, e.g. a same-named cluster.)
        place = by_place.get((r["doc_id"], r["level"], r["heading_path"]), [])
        gone = [v for v in place if v.node_hash not in hashes_of(int(r["build_id"]))]
        if gone:
            previous = latest[(gone[-1].doc_id, gone[-1].node_hash)]
            out[r["node_id"]] = ReviewState(
                PENDING,
                previous=previous,
                stale=True,
                reason="source changed since the review: re-check",
            )
        else:
            out[r["node_id"]] = ReviewState(PENDING)
    return out


def review_states_by_id(catalog: Catalog, node_ids: Sequence[str]) -> dict[str, ReviewState]:
    """:func:`review_states` of nodes given by id (e.g. a query's top results).

    A result's served summary is ``state.correction`` when it is not None, its review label
    ``state.review.status`` when ``state.review`` is not None.
    """
    return review_states(catalog, catalog.nodes.rows(sorted(set(node_ids))))


def _state_of(review: Review, summary_key: str | None) -> ReviewState:
    if review.corrected_text is not None:
        return ReviewState(review.status, review=review)
    if review.summary_key != summary_key:
        return ReviewState(
            PENDING,
            previous=review,
            reason=f"the summary was rewritten since it was {review.status}: re-check",
        )
    return ReviewState(review.status, review=review)


def corrections(catalog: Catalog, doc_id: str) -> dict[str, str]:
    """The expert corrections of a document's summaries, by node hash.

    The ingest uses a node's correction instead of writing its summary when the node's hash is
    unchanged, and feeds it to the node's ancestors like any child summary.
    """
    return catalog.reviews.corrections(doc_id)


def effective_summary(catalog: Catalog, row: Row) -> tuple[str | None, Review | None]:
    """The summary a node serves (the correction when it has one) and its applying review.

    Args:
        catalog: The catalog.
        row: A ``nodes`` row.

    Returns:
        ``(text, review)``: ``text`` is None for a passage or a node without a summary;
        ``review`` is the review that applies to the node now, or None.
    """
    if row["level"] == "passage":
        return None, None
    state = review_states(catalog, [row]).get(row["node_id"], ReviewState(PENDING))
    if state.correction is not None:
        return state.correction, state.review
    found = catalog.summaries([row["summary_key"]]) if row["summary_key"] else {}
    stored = found.get(row["summary_key"])
    return (stored.text if stored else None), state.review


def correction_sentences(catalog: Catalog, row: Row, text: str) -> list[ResolvedSentence]:
    """An expert's text as sourced sentences: each sentence with the source sentence below the
    node that supports it best (found by alignment; ``verified`` False where none does)."""
    node = NodeRecord.from_row(row)
    below = catalog.nodes.records_below(node)
    texts = catalog.nodes.texts_of(below)
    sources = [(p.char_start - node.char_start, texts.get(p.node_id, ("", None))[0]) for p in below]
    out: list[ResolvedSentence] = []
    for s in align_text(text, sources):
        spans = []
        for start, end in s.spans:
            a, b = node.char_start + start, node.char_start + end
            pages = next(
                (list(p.pages) for p in below if p.pages and p.char_start <= a < p.char_end),
                None,
            )
            spans.append(ResolvedSpan(a, b, pages))
        out.append(ResolvedSentence(s.text, tuple(spans), "statement", s.verified))
    return out


def apply_review(node: dict[str, Any], state: ReviewState | None) -> dict[str, Any]:
    """Put a node's review (and its correction, if any) into its node JSON, in place.

    A corrected node serves the expert's text as ``summary``; ``summarizer`` then names the
    expert, and ``review`` keeps what the machine had written.
    """
    review = state.review if state is not None else None
    if review is None:
        node["review"] = None
        return node
    node["review"] = {
        "status": review.status,
        "reviewer": review.reviewer,
        "review_id": review.review_id,
        "reviewed_at": review.created_at,
        "note": review.note,
        "corrected": review.corrected_text is not None,
    }
    if review.corrected_text is not None:
        node["review"]["machine_summary"] = node.get("summary")
        node["review"]["machine_summarizer"] = node.get("summarizer")
        node["summary"] = review.corrected_text
        node["summarizer"] = {
            "backend": EXPERT_BACKEND,
            "model": review.reviewer,
            "prompt_version": "correction",
        }
    return node
