"""The audit workflow: experts approve, correct or reject summaries; a queue says what to read next.

- :func:`review` records an expert's verdict on a served node's summary (a correction is linted
  against the node's sources like any summary) and appends it to the audit log;
- :func:`queue` lists the served summaries to read: stale reviews first (the source changed under
  a reviewed node), then the summaries with the most serious lint flags (dropped conditions and
  negations before invented numbers), then top levels first (an expert reads a document's
  summary before its chapters'), then document order;
- :func:`audit_log` lists who reviewed what, newest first;
- :func:`corrections` and :func:`effective_summary` (from :mod:`indexer.reviews`) are what the
  ingest and the node views use.

Lint flags of stored summaries are cached by summary key in ``lint_flags``: computed when a
document is published (the HTTP service hooks :func:`warm_lint` on the index) or else when the
queue first needs them. A summary is checked against what it was written from: the
headings down to the node, the node's own passages, and its inner children's summaries (their
corrections, where an expert corrected them) with their titles.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from indexer.errors import ConflictError, InvalidRequestError, NotFoundError
from indexer.hashing import hash_parts
from indexer.lint import flags_json, lint_summary
from indexer.reviews import (
    PENDING,
    REVIEW_STATUSES,
    Review,
    ReviewState,
    corrections,
    effective_summary,
    review_from_row,
    review_states,
)
from indexer.store.catalog import Catalog
from indexer.treeview import node_json

log = logging.getLogger("overstory.audit")

__all__ = [
    "QUEUE_STATUSES",
    "REVIEW_STATUSES",
    "audit_log",
    "corrections",
    "effective_summary",
    "lint_document",
    "node_sources",
    "queue",
    "review",
    "warm_lint",
]

QUEUE_STATUSES = (PENDING, *REVIEW_STATUSES, "all")
# An expert reads a document's summary before its chapters', a chapter's before its sections'.
LEVEL_ORDER = {"document": 0, "chapter": 1, "section": 2, "cluster": 3}
SERIOUS_FLAGS = ("condition", "negation")
MAX_CORRECTION_CHARS = 20_000
MAX_NOTE_CHARS = 2_000
MAX_QUEUE_PAGE = 500
_QUEUE_FIELDS = (
    "node_id",
    "level",
    "title",
    "heading_path",
    "pages",
    "char_start",
    "char_end",
    "hash",
    "summary",
    "summarizer",
    "covers",
    "review",
)


@dataclass
class _Nodes:
    """Inner nodes with what reviewing and linting them needs."""

    rows: list[sqlite3.Row]
    children: dict[str, list[sqlite3.Row]]  # inner children by parent node id
    summaries: dict[str, sqlite3.Row]  # summary rows by key
    states: dict[str, ReviewState]

    def summary_text(self, row: sqlite3.Row) -> str:
        """The node's summary as its parent reads it: the correction, else the stored one."""
        state = self.states.get(row["node_id"])
        if state is not None and state.correction is not None:
            return state.correction
        stored = self.summaries.get(row["summary_key"] or "")
        return str(stored["text"]) if stored is not None else ""


# reviewing -------------------------------------------------------------------------------------
def review(
    catalog: Catalog,
    node_id: str,
    *,
    status: str,
    corrected_text: str | None = None,
    note: str | None = None,
    reviewer: str,
) -> dict[str, Any]:
    """Record an expert's review of a served node's summary.

    ``approved`` of a node whose summary is a correction approves the correction (it stays the
    node's summary); ``rejected`` drops a correction (the machine summary is served again,
    marked rejected).

    Args:
        catalog: The catalog.
        node_id: A node of a document's served build that has a summary.
        status: ``approved``, ``corrected`` or ``rejected``.
        corrected_text: The expert's summary; required for ``corrected`` and only for it.
        note: An optional remark for the log and the next reviewer.
        reviewer: Who reviews (an API key's name, a user name).

    Returns:
        ``{"review", "flags", "node"}``: the stored review, the lint flags of the text now
        served (the correction's for ``corrected``) and the node as now served.

    Raises:
        InvalidRequestError: A bad status, a missing or unexpected text, a passage or a node
            without a summary.
        NotFoundError: No such node.
        ConflictError: The node belongs to a revision that is no longer served.
    """
    if status not in REVIEW_STATUSES:
        raise InvalidRequestError(
            f"status must be one of {', '.join(REVIEW_STATUSES)}; got {status!r}",
            detail={"field": "status"},
        )
    text = _checked_text(status, corrected_text)
    note = _checked_note(note)
    reviewer = reviewer.strip()
    if not reviewer:
        raise InvalidRequestError("a review needs a reviewer", detail={"field": "reviewer"})
    row = _served_node(catalog, node_id)
    nodes = _load(catalog, [row], with_children=True)
    state = nodes.states[row["node_id"]]
    if status == "approved" and state.correction is not None:
        text = state.correction  # approving the served correction keeps it
    if text is not None:
        flags = flags_json(lint_summary(text, node_sources(catalog, row, nodes)))
    else:
        flags = _machine_flags(catalog, [row], nodes)[row["node_id"]]
    now = time.time()
    previous = state.latest
    with catalog.write() as db:
        cur = db.execute(
            "INSERT INTO reviews (doc_id, node_hash, node_id, heading_path, level, summary_key,"
            " status, corrected_text, note, reviewer, flags, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                row["doc_id"],
                row["hash"],
                row["node_id"],
                row["heading_path"],
                row["level"],
                row["summary_key"],
                status,
                text,
                note,
                reviewer,
                json.dumps(flags),
                now,
            ),
        )
        review_id = int(cur.lastrowid or 0)
        detail = {
            "status": status,
            "level": row["level"],
            "heading_path": json.loads(row["heading_path"]),
            "summary_key": row["summary_key"],
            "corrected_text": text if status == "corrected" else None,
            "note": note,
            "flags": len(flags),
            "previous": (
                {"review_id": previous.review_id, "status": previous.status, "stale": state.stale}
                if previous is not None
                else None
            ),
        }
        db.execute(
            "INSERT INTO audit_log (at, actor, action, doc_id, node_id, node_hash, review_id,"
            " detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                now,
                reviewer,
                f"review.{status}",
                row["doc_id"],
                row["node_id"],
                row["hash"],
                review_id,
                json.dumps(detail, ensure_ascii=False),
            ),
        )
    stored = _review_by_id(catalog, review_id)
    after = _load(catalog, [row], with_children=False)
    doc = catalog.require_document(row["doc_id"])
    return {
        "review": stored.to_json(),
        "flags": flags,
        "node": _node_view(row, after, revision=doc["revision"]),
    }


def _checked_text(status: str, text: str | None) -> str | None:
    if status != "corrected":
        if text is not None and text.strip():
            raise InvalidRequestError(
                f"text is only for status 'corrected' (got status {status!r} with a text)",
                detail={"field": "text"},
            )
        return None
    cleaned = (text or "").replace("\r\n", "\n").strip()
    if not cleaned:
        raise InvalidRequestError(
            "a correction needs the corrected summary text", detail={"field": "text"}
        )
    if len(cleaned) > MAX_CORRECTION_CHARS:
        raise InvalidRequestError(
            f"a correction may be at most {MAX_CORRECTION_CHARS:,} characters; "
            f"got {len(cleaned):,}",
            detail={"field": "text", "limit": MAX_CORRECTION_CHARS},
        )
    return cleaned


def _checked_note(note: str | None) -> str | None:
    cleaned = (note or "").strip()
    if len(cleaned) > MAX_NOTE_CHARS:
        raise InvalidRequestError(
            f"a note may be at most {MAX_NOTE_CHARS:,} characters; got {len(cleaned):,}",
            detail={"field": "note", "limit": MAX_NOTE_CHARS},
        )
    return cleaned or None


def _served_node(catalog: Catalog, node_id: str) -> sqlite3.Row:
    row = catalog.node(node_id)
    if row is None:
        raise NotFoundError(f"no node {node_id!r}", detail={"node_id": node_id})
    doc = catalog.document(row["doc_id"])
    if doc is None or doc["current_build"] != row["build_id"]:
        served = None
        if doc is not None and doc["current_build"] is not None:
            found = catalog.db.execute(
                "SELECT node_id FROM nodes WHERE build_id = ? AND hash = ? AND level = ?",
                (doc["current_build"], row["hash"], row["level"]),
            ).fetchone()
            served = found["node_id"] if found else None
        raise ConflictError(
            f"node {node_id!r} belongs to a revision of {row['doc_id']!r} that is no longer "
            "served; review the served revision's node"
            + (f" {served!r}" if served else " (reload the queue)"),
            detail={"node_id": node_id, "served_node_id": served},
        )
    if row["level"] == "passage":
        raise InvalidRequestError(
            f"node {node_id!r} is a passage (a quote of the source); only summaries are reviewed",
            detail={"node_id": node_id, "level": "passage"},
        )
    if not row["summary_key"]:
        raise InvalidRequestError(
            f"node {node_id!r} has no summary to review", detail={"node_id": node_id}
        )
    return row


def _review_by_id(catalog: Catalog, review_id: int) -> Review:
    row = catalog.db.execute("SELECT * FROM reviews WHERE review_id = ?", (review_id,)).fetchone()
    return review_from_row(row)


# sources and lint ------------------------------------------------------------------------------
def node_sources(catalog: Catalog, row: sqlite3.Row, nodes: _Nodes | None = None) -> list[str]:
    """What a node's summary is checked against: headings, own passages, children's summaries.

    Args:
        catalog: The catalog.
        row: An inner node.
        nodes: The node's loaded context (its inner children, their summaries and reviews);
            loaded when omitted.
    """
    nodes = nodes if nodes is not None else _load(catalog, [row], with_children=True)
    passages = _passage_texts(catalog, [row])
    return _sources(row, nodes, passages.get(row["node_id"], []))


def _sources(row: sqlite3.Row, nodes: _Nodes, passages: list[str]) -> list[str]:
    out = [*json.loads(row["heading_path"]), *passages]
    for child in nodes.children.get(row["node_id"], []):
        out += [child["title"] or "", nodes.summary_text(child)]
    return [s for s in out if s]


def _passage_texts(catalog: Catalog, rows: Sequence[sqlite3.Row]) -> dict[str, list[str]]:
    """The texts of each node's own passages (its direct passage children), in order."""
    out: dict[str, list[str]] = defaultdict(list)
    ids = [r["node_id"] for r in rows]
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        marks = ",".join("?" * len(chunk))
        for r in catalog.db.execute(
            f"SELECT parent_id, text FROM nodes WHERE parent_id IN ({marks})"
            " AND level = 'passage' ORDER BY ordinal",
            chunk,
        ):
            out[r["parent_id"]].append(r["text"] or "")
    return out


def _inputs(row: sqlite3.Row, nodes: _Nodes) -> str:
    """What, beyond its cache key, decides a summary's sources: its children's corrections."""
    fixed = [
        state.correction
        for child in nodes.children.get(row["node_id"], [])
        if (state := nodes.states.get(child["node_id"])) is not None
        and state.correction is not None
    ]
    return hash_parts(["lint-inputs", *fixed]) if fixed else ""


def _machine_flags(
    catalog: Catalog, targets: Sequence[sqlite3.Row], nodes: _Nodes
) -> dict[str, list[dict[str, Any]]]:
    """Lint flags of the stored summaries of ``targets``, from the cache or computed now."""
    wanted = {r["node_id"]: _inputs(r, nodes) for r in targets if r["summary_key"]}
    keys = sorted({r["summary_key"] for r in targets if r["summary_key"]})
    cached: dict[str, tuple[str, list[dict[str, Any]]]] = {}
    for i in range(0, len(keys), 500):
        chunk = keys[i : i + 500]
        marks = ",".join("?" * len(chunk))
        for r in catalog.db.execute(
            f"SELECT summary_key, inputs, flags FROM lint_flags WHERE summary_key IN ({marks})",
            chunk,
        ):
            cached[r["summary_key"]] = (r["inputs"], json.loads(r["flags"]))
    out: dict[str, list[dict[str, Any]]] = {}
    todo: list[sqlite3.Row] = []
    for r in targets:
        if not r["summary_key"]:
            out[r["node_id"]] = []
            continue
        hit = cached.get(r["summary_key"])
        if hit is not None and hit[0] == wanted[r["node_id"]]:
            out[r["node_id"]] = hit[1]
        else:
            todo.append(r)
    if not todo:
        return out
    passages = _passage_texts(catalog, todo)
    computed: list[tuple[str, str, str, float]] = []
    now = time.time()
    for r in todo:
        stored = nodes.summaries.get(r["summary_key"])
        text = str(stored["text"]) if stored is not None else ""
        flags = flags_json(lint_summary(text, _sources(r, nodes, passages.get(r["node_id"], []))))
        out[r["node_id"]] = flags
        computed.append((r["summary_key"], wanted[r["node_id"]], json.dumps(flags), now))
    with catalog.write() as db:
        db.executemany(
            "INSERT OR REPLACE INTO lint_flags (summary_key, inputs, flags, created_at)"
            " VALUES (?, ?, ?, ?)",
            computed,
        )
    return out


def lint_document(catalog: Catalog, doc_id: str) -> int:
    """Compute and cache the lint flags of a document's served summaries; return how many.

    Meant for :attr:`Index.on_publish`, so that the first audit queue after a large ingest does
    not pay for linting. A document that is not served (deleted) has none.
    """
    doc = catalog.document(doc_id)
    if doc is None or doc["current_build"] is None:
        return 0
    rows = catalog.db.execute(
        "SELECT * FROM nodes WHERE build_id = ? AND level != 'passage' ORDER BY ordinal",
        (doc["current_build"],),
    ).fetchall()
    nodes = _load(catalog, rows, with_children=False)
    return len(_machine_flags(catalog, [r for r in rows if r["summary_key"]], nodes))


def warm_lint(catalog: Catalog, doc_id: str) -> None:
    """:func:`lint_document`, logging instead of raising: a cache warm-up never fails an ingest
    (the queue computes whatever is missing)."""
    try:
        lint_document(catalog, doc_id)
    except Exception:
        log.warning(
            "linting the summaries of %s failed; the audit queue will retry", doc_id, exc_info=True
        )


# loading ---------------------------------------------------------------------------------------
def _load(catalog: Catalog, rows: list[sqlite3.Row], *, with_children: bool) -> _Nodes:
    """Inner ``rows`` (plus, if asked, their inner children) with summaries and review states."""
    children: dict[str, list[sqlite3.Row]] = defaultdict(list)
    every = list(rows)
    if with_children:
        for r in rows:
            kids = catalog.db.execute(
                "SELECT * FROM nodes WHERE parent_id = ? AND build_id = ? AND level != 'passage'"
                " ORDER BY ordinal",
                (r["node_id"], r["build_id"]),
            ).fetchall()
            children[r["node_id"]] = kids
            every += kids
    else:
        present = {r["node_id"] for r in rows}
        for r in rows:
            if r["parent_id"] in present:
                children[r["parent_id"]].append(r)
    keys = [r["summary_key"] for r in every if r["summary_key"]]
    return _Nodes(
        rows=rows,
        children=children,
        summaries=catalog.summary_rows(keys),
        states=review_states(catalog, every),
    )


def _node_view(row: sqlite3.Row, nodes: _Nodes, *, revision: str | None) -> dict[str, Any]:
    full = node_json(row, nodes.summaries.get(row["summary_key"]), nodes.states.get(row["node_id"]))
    view = {k: full.get(k) for k in _QUEUE_FIELDS}
    view["doc_id"] = row["doc_id"]
    if revision is not None:
        view["revision"] = revision
    return view


# the queue -------------------------------------------------------------------------------------
def queue(
    catalog: Catalog,
    *,
    doc_ids: Sequence[str] | None = None,
    status: str = PENDING,
    limit: int = 20,
    offset: int = 0,
) -> dict[str, Any]:
    """The served summaries to audit, most urgent first (see the module doc for the order).

    Args:
        catalog: The catalog.
        doc_ids: Only these documents (default: every served document).
        status: ``pending`` (never reviewed, stale, or rewritten since), ``approved``,
            ``corrected``, ``rejected`` or ``all``.
        limit: Items per page (1–500).
        offset: Items to skip.

    Returns:
        ``{"items", "total", "limit", "offset", "status", "counts"}``; each item has the node
        (summary as served), its lint ``flags``, its ``status``, its latest ``review`` (or
        null), ``stale``, ``reason`` and ``sources`` (the passages it covers).

    Raises:
        InvalidRequestError: An unknown status, or a limit or offset out of range.
        NotFoundError: One of ``doc_ids`` is not a served document.
    """
    if status not in QUEUE_STATUSES:
        raise InvalidRequestError(
            f"status must be one of {', '.join(QUEUE_STATUSES)}; got {status!r}",
            detail={"field": "status"},
        )
    if not 1 <= limit <= MAX_QUEUE_PAGE:
        raise InvalidRequestError(
            f"limit must be between 1 and {MAX_QUEUE_PAGE}; got {limit}",
            detail={"field": "limit", "limit": MAX_QUEUE_PAGE},
        )
    if offset < 0:
        raise InvalidRequestError(
            f"offset must be 0 or more; got {offset}", detail={"field": "offset"}
        )
    documents = {r["doc_id"]: r for r in catalog.documents()}
    if doc_ids:
        for doc_id in doc_ids:
            if doc_id not in documents:
                raise NotFoundError(f"no document {doc_id!r}", detail={"doc_id": doc_id})
        documents = {d: documents[d] for d in doc_ids}
    rows: list[sqlite3.Row] = []
    for doc in sorted(documents):
        rows += catalog.db.execute(
            "SELECT * FROM nodes WHERE build_id = ? AND level != 'passage' ORDER BY ordinal",
            (documents[doc]["current_build"],),
        ).fetchall()
    nodes = _load(catalog, rows, with_children=False)
    summarized = [r for r in rows if r["summary_key"] and r["summary_key"] in nodes.summaries]
    flags = _machine_flags(catalog, summarized, nodes)
    counts = dict.fromkeys((PENDING, *REVIEW_STATUSES, "stale"), 0)
    items: list[tuple[tuple[Any, ...], sqlite3.Row, ReviewState, list[dict[str, Any]]]] = []
    for r in summarized:
        state = nodes.states.get(r["node_id"], ReviewState(PENDING))
        counts[state.status] += 1
        counts["stale"] += int(state.stale)
        if status not in ("all", state.status):
            continue
        shown = state.review.flags if state.correction is not None and state.review else None
        node_flags = shown if shown is not None else flags[r["node_id"]]
        serious = sum(1 for f in node_flags if f["kind"] in SERIOUS_FLAGS)
        order = (
            0 if state.stale else 1,
            -serious,
            -len(node_flags),
            LEVEL_ORDER.get(r["level"], len(LEVEL_ORDER)),
            r["doc_id"],
            r["ordinal"],
        )
        items.append((order, r, state, node_flags))
    items.sort(key=lambda item: item[0])
    page = items[offset : offset + limit]
    return {
        "items": [
            _queue_item(r, nodes, state, node_flags, revision=documents[r["doc_id"]]["revision"])
            for _, r, state, node_flags in page
        ],
        "total": len(items),
        "limit": limit,
        "offset": offset,
        "status": status,
        "counts": counts,
    }


def _queue_item(
    row: sqlite3.Row,
    nodes: _Nodes,
    state: ReviewState,
    flags: list[dict[str, Any]],
    *,
    revision: str,
) -> dict[str, Any]:
    latest = state.latest
    return {
        "node": _node_view(row, nodes, revision=revision),
        "status": state.status,
        "flags": flags,
        "review": latest.to_json() if latest is not None else None,
        "stale": state.stale,
        "reason": state.reason,
        "sources": {
            "passages": row["n_passages"],
            "first": row["first_passage"],
            "last": row["last_passage"],
            "href": f"/v1/nodes/{row['node_id']}",
        },
    }


# the log ---------------------------------------------------------------------------------------
def audit_log(
    catalog: Catalog, *, doc_id: str | None = None, limit: int = 50, offset: int = 0
) -> dict[str, Any]:
    """The audit log, newest first.

    Raises:
        InvalidRequestError: A limit or offset out of range.
    """
    if not 1 <= limit <= MAX_QUEUE_PAGE:
        raise InvalidRequestError(
            f"limit must be between 1 and {MAX_QUEUE_PAGE}; got {limit}",
            detail={"field": "limit", "limit": MAX_QUEUE_PAGE},
        )
    if offset < 0:
        raise InvalidRequestError(
            f"offset must be 0 or more; got {offset}", detail={"field": "offset"}
        )
    where, args = ("WHERE doc_id = ?", (doc_id,)) if doc_id else ("", ())
    total = catalog.db.execute(f"SELECT COUNT(*) FROM audit_log {where}", args).fetchone()[0]
    rows = catalog.db.execute(
        f"SELECT * FROM audit_log {where} ORDER BY entry_id DESC LIMIT ? OFFSET ?",
        (*args, limit, offset),
    ).fetchall()
    return {
        "entries": [
            {
                "entry_id": r["entry_id"],
                "at": r["at"],
                "actor": r["actor"],
                "action": r["action"],
                "doc_id": r["doc_id"],
                "node_id": r["node_id"],
                "node_hash": r["node_hash"],
                "review_id": r["review_id"],
                "detail": json.loads(r["detail"]),
            }
            for r in rows
        ],
        "total": int(total),
        "limit": limit,
        "offset": offset,
    }
