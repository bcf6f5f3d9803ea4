"""Inner nodes loaded with what reviewing and linting them needs (shared by the audit modules)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from api.service.audit_models import QueueNodePublic
from indexer.reviews import ReviewState, review_states
from indexer.store.backends import Row
from indexer.store.catalog import Catalog
from indexer.treeview import node_json

# An expert reads a document's summary before its chapters', a chapter's before its sections'.
LEVEL_ORDER = {"document": 0, "chapter": 1, "section": 2, "cluster": 3}
_VIEW_FIELDS = (
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
class AuditNodes:
    """Inner nodes with their inner children, summaries and review states."""

    rows: list[Row]
    children: dict[str, list[Row]]  # inner children by parent node id
    summaries: dict[str, Row]  # summary rows by key
    states: dict[str, ReviewState]

    def summary_text(self, row: Row) -> str:
        """The node's summary as its parent reads it: the correction, else the stored one."""
        state = self.states.get(row["node_id"])
        if state is not None and state.correction is not None:
            return state.correction
        stored = self.summaries.get(row["summary_key"] or "")
        return str(stored["text"]) if stored is not None else ""

    def view(self, row: Row, *, revision: str) -> QueueNodePublic:
        """The node as the audit shows it: the summary as served, with its review."""
        full = node_json(
            row, self.summaries.get(row["summary_key"]), self.states.get(row["node_id"])
        )
        out = {k: full.get(k) for k in _VIEW_FIELDS}
        return QueueNodePublic.model_validate(
            {**out, "doc_id": row["doc_id"], "revision": revision}
        )


def load_nodes(catalog: Catalog, rows: list[Row], *, with_children: bool) -> AuditNodes:
    """Inner ``rows`` (plus, if asked, their inner children) with summaries and review states.

    Without ``with_children`` a node's children are those of ``rows`` whose parent it is (the
    caller passed whole builds).
    """
    children: dict[str, list[Row]] = defaultdict(list)
    every = list(rows)
    if with_children:
        for r in rows:
            kids = catalog.nodes.children(r["node_id"], r["build_id"], inner=True)
            children[r["node_id"]] = kids
            every += kids
    else:
        present = {r["node_id"] for r in rows}
        for r in rows:
            if r["parent_id"] in present:
                children[r["parent_id"]].append(r)
    keys = [r["summary_key"] for r in every if r["summary_key"]]
    return AuditNodes(
        rows=rows,
        children=children,
        summaries=catalog.summary_rows(keys),
        states=review_states(catalog, every),
    )
