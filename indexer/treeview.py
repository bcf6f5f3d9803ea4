"""Stored nodes as JSON: the node format shared by ``tree --json`` and the HTTP browse routes."""

from __future__ import annotations

import json
from typing import Any

from indexer.reviews import ReviewState, apply_review, correction_sentences, review_states
from indexer.sourced import loads_resolved
from indexer.store.backends import Row
from indexer.store.catalog import Catalog


def node_json(
    row: Row,
    summary: Row | None,
    review: ReviewState | None = None,
    *,
    catalog: Catalog | None = None,
) -> dict[str, Any]:
    """One node without its children; an inner node's expert review applied (see ``reviews``).

    A summary's ``sentences`` carry the source spans each rests on; a correction's are found by
    alignment with the source below the node (only when ``catalog`` is given).
    """
    pages = [row["page_start"], row["page_end"]] if row["page_start"] is not None else None
    out: dict[str, Any] = {
        "node_id": row["node_id"],
        "level": row["level"],
        "title": row["title"],
        "heading_path": json.loads(row["heading_path"]),
        "char_start": row["char_start"],
        "char_end": row["char_end"],
        "pages": pages,
        "hash": row["hash"],
        "text": row["text"],
        "summary": summary["text"] if summary is not None else None,
        "summarizer": None,
    }
    if summary is not None:
        out["summarizer"] = {
            "backend": summary["backend"],
            "model": summary["model"],
            "prompt_version": summary["prompt_version"],
        }
    if row["level"] != "passage":
        out["covers"] = {
            "passages": row["n_passages"],
            "first": row["first_passage"],
            "last": row["last_passage"],
        }
        if row["covers"]:
            out["covers"]["ids"] = json.loads(row["covers"])
        out["sentences"] = [s.to_json() for s in loads_resolved(row["sentences"])]
        apply_review(out, review)
        if catalog is not None and out["review"] is not None and out["review"]["corrected"]:
            found = correction_sentences(catalog, row, out["summary"])
            out["sentences"] = [s.to_json() for s in found]
    return out


def tree_json(catalog: Catalog, build_id: int) -> dict[str, Any]:
    """The whole tree of one build, from its root, with ``children`` nested."""
    rows = catalog.nodes_of_build(build_id)
    keys = [r["summary_key"] for r in rows if r["summary_key"]]
    summaries = catalog.summary_rows(keys)
    reviews = review_states(catalog, rows)
    by_id: dict[str, dict[str, Any]] = {}
    root: dict[str, Any] | None = None
    for r in rows:
        node = node_json(
            r, summaries.get(r["summary_key"]), reviews.get(r["node_id"]), catalog=catalog
        )
        node["children"] = []
        by_id[r["node_id"]] = node
        if r["parent_id"] is None:
            root = node
        else:
            by_id[r["parent_id"]]["children"].append(node)
    assert root is not None
    return root
