"""The audit queue (what to read next) and the audit log (who reviewed what).

The queue lists the served summaries to read: stale reviews first (the source changed under a
reviewed node), then flagged summaries, the one whose likeliest flag is most likely a real fault
first (each flag's ``confidence``, :mod:`indexer.lint.confidence`: an expert's first hour goes
to faults, not to the rules' noise), ties broken by the most serious flags (dropped conditions
and negations before invented numbers), then top levels first (an expert reads a document's
summary before its chapters'), then document order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from api.service.audit_models import (
    AuditLogPublic,
    FlagPublic,
    LogEntryPublic,
    QueueItemPublic,
    QueuePublic,
    ReviewPublic,
    SourcesPublic,
)
from api.service.audit_nodes import LEVEL_ORDER, AuditNodes, load_nodes
from api.service.lint_cache import machine_flags, typed_flags
from indexer.errors import InvalidRequestError, NotFoundError
from indexer.lint import Linter
from indexer.reviews import PENDING, REVIEW_STATUSES, ReviewState
from indexer.store.backends import Row
from indexer.store.catalog import Catalog

QUEUE_STATUSES = (PENDING, *REVIEW_STATUSES, "all")
SERIOUS_FLAGS = ("condition", "negation")
# A flag without an estimate (a judge's, or one stored by an older lint) ranks as a coin toss.
UNRATED = 0.5
MAX_QUEUE_PAGE = 500


@dataclass(frozen=True, kw_only=True)
class _Item:
    order: tuple[int | float | str, ...]
    row: Row
    state: ReviewState
    flags: list[FlagPublic]
    hidden: int = 0


def queue(
    catalog: Catalog,
    *,
    doc_ids: Sequence[str] | None = None,
    status: str = PENDING,
    limit: int = 20,
    offset: int = 0,
    linter: Linter | None = None,
    min_confidence: float = 0.0,
) -> QueuePublic:
    """The served summaries to audit, most urgent first (see the module doc for the order).

    Args:
        catalog: The catalog.
        doc_ids: Only these documents (default: every served document).
        status: ``pending`` (never reviewed, stale, or rewritten since), ``approved``,
            ``corrected``, ``rejected`` or ``all``.
        limit, offset: Items per page (1–500) and items to skip.
        linter: The lint for summaries not linted yet (default: alignment by shared words).
        min_confidence: Flags less likely than this to name a real fault are not shown (each
            item counts them in ``hidden_flags``); 0 shows every flag.

    Returns:
        One page of items and the counts by status; each item has the node (summary as
        served), its lint ``flags``, its ``status``, its latest ``review`` (or null),
        ``stale``, ``reason`` and ``sources`` (the passages it covers).

    Raises:
        InvalidRequestError: An unknown status, or a limit or offset out of range.
        NotFoundError: One of ``doc_ids`` is not a served document.
    """
    if status not in QUEUE_STATUSES:
        raise InvalidRequestError(
            f"status must be one of {', '.join(QUEUE_STATUSES)}; got {status!r}",
            detail={"field": "status"},
        )
    check_page(limit, offset)
    documents = _documents(catalog, doc_ids)
    builds = [documents[doc]["current_build"] for doc in sorted(documents)]
    rows = [r for build in builds for r in catalog.nodes.inner_of_build(build)]
    nodes = load_nodes(catalog, rows, with_children=False)
    summarized = [r for r in rows if r["summary_key"] and r["summary_key"] in nodes.summaries]
    flags = machine_flags(catalog, summarized, nodes, linter=linter)
    counts, items = _items(summarized, nodes, flags, status=status, min_confidence=min_confidence)
    page = items[offset : offset + limit]
    return QueuePublic(
        items=[
            _queue_item(i, nodes, revision=documents[i.row["doc_id"]]["revision"]) for i in page
        ],
        total=len(items),
        limit=limit,
        offset=offset,
        status=status,  # type: ignore[arg-type]  # checked against QUEUE_STATUSES above
        counts=counts,
    )


def _items(
    rows: list[Row],
    nodes: AuditNodes,
    flags: dict[str, list[FlagPublic]],
    *,
    status: str,
    min_confidence: float,
) -> tuple[dict[str, int], list[_Item]]:
    """The count of summaries per review status, and the items of ``status`` in queue order."""
    counts = dict.fromkeys((PENDING, *REVIEW_STATUSES, "stale"), 0)
    items: list[_Item] = []
    for r in rows:
        state = nodes.states.get(r["node_id"], ReviewState(PENDING))
        counts[state.status] += 1
        counts["stale"] += int(state.stale)
        if status in ("all", state.status):
            items.append(_item(r, state, flags[r["node_id"]], min_confidence))
    items.sort(key=lambda item: item.order)
    return counts, items


def check_page(limit: int, offset: int) -> None:
    """InvalidRequestError unless 1 ≤ limit ≤ MAX_QUEUE_PAGE and offset ≥ 0."""
    if not 1 <= limit <= MAX_QUEUE_PAGE:
        raise InvalidRequestError(
            f"limit must be between 1 and {MAX_QUEUE_PAGE}; got {limit}",
            detail={"field": "limit", "limit": MAX_QUEUE_PAGE},
        )
    if offset < 0:
        raise InvalidRequestError(
            f"offset must be 0 or more; got {offset}", detail={"field": "offset"}
        )


def _documents(catalog: Catalog, doc_ids: Sequence[str] | None) -> dict[str, Row]:
    documents = {r["doc_id"]: r for r in catalog.documents()}
    if not doc_ids:
        return documents
    for doc_id in doc_ids:
        if doc_id not in documents:
            raise NotFoundError(f"no document {doc_id!r}", detail={"doc_id": doc_id})
    return {d: documents[d] for d in doc_ids}


def _item(row: Row, state: ReviewState, machine: list[FlagPublic], min_confidence: float) -> _Item:
    # A correction is shown with the flags of the expert's text, stored with the review.
    stored = state.review.flags if state.correction is not None and state.review else None
    every = typed_flags(stored) if stored is not None else machine
    flags = [f for f in every if f.confidence is None or f.confidence >= min_confidence]
    serious = sum(1 for f in flags if f.kind in SERIOUS_FLAGS)
    likeliest = max((_confidence(f) for f in flags), default=0.0)
    order = (
        0 if state.stale else 1,
        -likeliest,
        -serious,
        -len(flags),
        LEVEL_ORDER.get(row["level"], len(LEVEL_ORDER)),
        row["doc_id"],
        row["ordinal"],
    )
    return _Item(order=order, row=row, state=state, flags=flags, hidden=len(every) - len(flags))


def _confidence(flag: FlagPublic) -> float:
    return flag.confidence if flag.confidence is not None else UNRATED


def _queue_item(item: _Item, nodes: AuditNodes, *, revision: str) -> QueueItemPublic:
    row, latest = item.row, item.state.latest
    return QueueItemPublic(
        node=nodes.view(row, revision=revision),
        status=item.state.status,  # type: ignore[arg-type]  # a review status or pending
        flags=item.flags,
        hidden_flags=item.hidden,
        review=ReviewPublic.model_validate(latest.to_json()) if latest is not None else None,
        stale=item.state.stale,
        reason=item.state.reason,
        sources=SourcesPublic(
            passages=row["n_passages"],
            first=row["first_passage"],
            last=row["last_passage"],
            href=f"/v1/nodes/{row['node_id']}",
        ),
    )


def audit_log(
    catalog: Catalog, *, doc_id: str | None = None, limit: int = 50, offset: int = 0
) -> AuditLogPublic:
    """The audit log, newest first.

    Raises:
        InvalidRequestError: A limit or offset out of range.
    """
    check_page(limit, offset)
    rows, total = catalog.reviews.log_page(doc_id=doc_id, limit=limit, offset=offset)
    entries = [
        LogEntryPublic(
            entry_id=r["entry_id"],
            at=r["at"],
            actor=r["actor"],
            action=r["action"],
            doc_id=r["doc_id"],
            node_id=r["node_id"],
            node_hash=r["node_hash"],
            review_id=r["review_id"],
            detail=json.loads(r["detail"]),
        )
        for r in rows
    ]
    return AuditLogPublic(entries=entries, total=total, limit=limit, offset=offset)
