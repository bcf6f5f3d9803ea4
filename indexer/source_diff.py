"""What changed in the source below a node since its summary was reviewed.

A review is kept per node hash; when the source below the node changes, the review goes *stale*
(:mod:`indexer.reviews`) and the expert re-checks the new summary. What they need to see is how
the source they judged became the source now served: the review remembers the node it was made
on, in the build of that time, and this module compares that node's source text with the served
node's, sentence by sentence and word by word (:mod:`indexer.text_diff`).

A node's *source text* is the extracted text of its build from the node's first to its last
character (a heading node: its own heading, passages and subsections); a cluster's is its
passages' ranges, merged where passages overlap, one after the other.

The retention rule keeps a stale review's build (``HistoryTable.pinned_builds``), but not the
build of a review that still applied when the retention ran: the same source is then looked for
in the kept builds (a node of the same hash), and only when none has it does the answer say that
the reviewed source is gone.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from indexer.errors import InvalidRequestError, NotFoundError
from indexer.reviews import PENDING, Review, ReviewState, review_states
from indexer.store.backends import Row
from indexer.store.catalog import Catalog
from indexer.store.records import NodeRecord
from indexer.text_diff import DiffOp, diff_texts

SOURCE_DIFF_STATUSES = ("changed", "unchanged", "not_reviewed", "pruned")
_CLUSTER_GAP = "\n\n…\n\n"  # between a cluster's passages that are apart in the document

_MESSAGES = {
    "changed": "The source below this node changed since it was reviewed.",
    "unchanged": "The source below this node is the one that was reviewed.",
    "not_reviewed": "This node was never reviewed: there is no earlier source to compare.",
    "pruned": "The revision the review was made on is no longer kept (dropped by the retention "
    "rule): its source cannot be compared.",
}


@dataclass(frozen=True, kw_only=True)
class SourceDiff:
    """The comparison of a node's source with the source of its latest review.

    Attributes:
        node_id: The node compared (as served, or of any kept build).
        doc_id: Its document.
        revision: Its build's revision.
        status: ``changed``, ``unchanged``, ``not_reviewed`` or ``pruned``.
        message: ``status`` for people.
        review: The review compared against (None when ``not_reviewed``).
        reviewed_node_id: The node the review was made on, in the build of that time.
        reviewed_revision: That build's revision (None when it is gone).
        ops: The runs from the reviewed source to the current one (``changed`` only).
    """

    node_id: str
    doc_id: str
    revision: str | None
    status: str
    message: str
    review: Review | None = None
    reviewed_node_id: str | None = None
    reviewed_revision: str | None = None
    ops: list[DiffOp] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """Words ``added`` and ``removed``."""
        return {
            kind: sum(op.words() for op in self.ops if op.op == kind)
            for kind in ("added", "removed")
        }

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (``GET /v1/nodes/{node_id}/source-diff``)."""
        review = self.review
        return {
            "node_id": self.node_id,
            "doc_id": self.doc_id,
            "revision": self.revision,
            "status": self.status,
            "message": self.message,
            "review": None
            if review is None
            else {
                "review_id": review.review_id,
                "status": review.status,
                "reviewer": review.reviewer,
                "reviewed_at": review.created_at,
                "corrected_text": review.corrected_text,
            },
            "reviewed_node_id": self.reviewed_node_id,
            "reviewed_revision": self.reviewed_revision,
            "words": self.counts(),
            "ops": [{"op": op.op, "text": op.text} for op in self.ops],
        }


def source_diff(catalog: Catalog, node_id: str) -> SourceDiff:
    """How the source below ``node_id`` differs from the source its latest review judged.

    Raises:
        NotFoundError: No such node.
        InvalidRequestError: The node is a passage (passages are quoted, not reviewed).
    """
    row = catalog.node(node_id)
    if row is None:
        raise NotFoundError(f"no node {node_id!r}", detail={"node_id": node_id})
    if row["level"] == "passage":
        raise InvalidRequestError(
            "a passage is quoted, not summarized: it has no review to compare with",
            detail={"node_id": node_id},
        )
    state = review_states(catalog, [row]).get(node_id, ReviewState(PENDING))
    review = state.latest
    base = SourceDiff(
        node_id=node_id,
        doc_id=row["doc_id"],
        revision=_revision(catalog, row),
        status="not_reviewed",
        message=_MESSAGES["not_reviewed"],
    )
    if review is None:
        return base
    old = _reviewed_node(catalog, review)
    seen = replace(
        base,
        review=review,
        reviewed_node_id=old["node_id"] if old is not None else review.node_id,
        reviewed_revision=_revision(catalog, old) if old is not None else None,
    )
    if review.node_hash == row["hash"]:
        return replace(seen, status="unchanged", message=_MESSAGES["unchanged"])
    if old is None:
        return replace(seen, status="pruned", message=_MESSAGES["pruned"])
    ops = diff_texts(source_text(catalog, old), source_text(catalog, row))
    if not any(op.op != "equal" for op in ops):
        return replace(seen, status="unchanged", message=_MESSAGES["unchanged"])
    return replace(seen, status="changed", message=_MESSAGES["changed"], ops=ops)


def source_text(catalog: Catalog, row: Row) -> str:
    """The source text below an inner node (see the module doc)."""
    text = catalog.build_text(int(row["build_id"]))
    if not row["covers"]:
        return text[int(row["char_start"]) : int(row["char_end"])]
    passages = catalog.nodes.records_below(NodeRecord.from_row(row))
    ranges: list[list[int]] = []
    for p in sorted(passages, key=lambda p: p.char_start):
        if ranges and p.char_start <= ranges[-1][1]:
            ranges[-1][1] = max(ranges[-1][1], p.char_end)
        else:
            ranges.append([p.char_start, p.char_end])
    return _CLUSTER_GAP.join(text[a:b] for a, b in ranges)


def _reviewed_node(catalog: Catalog, review: Review) -> Row | None:
    """The node the review was made on or, when its build is gone, a node of a kept build with
    the same hash (the same source), newest first."""
    row = catalog.node(review.node_id)
    if row is not None:
        return row
    for build in reversed(catalog.revisions(review.doc_id)):
        found = catalog.nodes.find_in_build(
            build.build_id, node_hash=review.node_hash, level=review.level
        )
        if found is not None:
            return catalog.node(found)
    return None


def _revision(catalog: Catalog, row: Row) -> str | None:
    build = catalog.builds([int(row["build_id"])]).get(int(row["build_id"]))
    return build.revision if build is not None else None
