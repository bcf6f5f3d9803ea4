"""An expert's correction feeds the ancestors' summaries and lasts while its source does."""

from __future__ import annotations

from pathlib import Path

import pytest

from api.service.audit import review
from indexer.index import Index
from tests.helpers import walk

pytestmark = pytest.mark.backends

MANUAL = """# Valve Manual

## 1 Operation

### 1.1 Opening

Open the valve only when the line pressure is below 6 bar. Turn the handwheel anticlockwise.

### 1.2 Closing

Close the valve slowly to avoid water hammer in the downstream piping.

## 2 Care

Grease the stem every 500 operating hours with lithium grease.
"""

CORRECTION = "Open the valve only below 6 bar line pressure (expert-checked wording)."


def _node(tree: dict, title: str) -> dict:
    return next(n for n in walk(tree) if n["title"] == title)


def test_correction_rebuilds_ancestors_and_goes_stale_on_source_change(
    fast_index: Index, tmp_path: Path
) -> None:
    doc = tmp_path / "valve.md"
    doc.write_text(MANUAL)
    fast_index.ingest_paths([doc])
    doc_id = doc.name
    tree = fast_index.tree(doc_id)
    opening = _node(tree, "1.1 Opening")
    review(
        fast_index.catalog,
        opening["node_id"],
        status="corrected",
        corrected_text=CORRECTION,
        reviewer="expert",
    )

    # The file is unchanged, but the correction changes what the chapter is built from.
    report = fast_index.ingest_paths([doc])
    assert report.documents[0].status == "changed"
    # "1 Operation" and the document are rebuilt from the corrected child; nothing else.
    assert report.summarizer_calls == 2
    tree = fast_index.tree(doc_id)
    assert _node(tree, "1.1 Opening")["summary"] == CORRECTION
    assert "expert-checked wording" in _node(tree, "1 Operation")["summary"]

    # Unchanged again: nothing to do, and the correction stands.
    again = fast_index.ingest_paths([doc])
    assert again.documents[0].status == "unchanged"
    assert again.summarizer_calls == 0

    # The source under the corrected node changes: the correction no longer applies.
    doc.write_text(MANUAL.replace("below 6 bar", "below 5 bar"))
    fast_index.ingest_paths([doc])
    tree = fast_index.tree(doc_id)
    assert _node(tree, "1.1 Opening")["summary"] != CORRECTION
    assert "5 bar" in _node(tree, "1.1 Opening")["summary"]


def test_query_results_serve_the_correction_and_its_status(
    fast_index: Index, tmp_path: Path
) -> None:
    from retriever import QueryRequest, Retriever

    doc = tmp_path / "valve.md"
    doc.write_text(MANUAL)
    fast_index.ingest_paths([doc])
    opening = _node(fast_index.tree(doc.name), "1.1 Opening")
    review(
        fast_index.catalog,
        opening["node_id"],
        status="corrected",
        corrected_text=CORRECTION,
        reviewer="expert",
    )
    retriever = Retriever(fast_index)
    found = retriever.query(
        QueryRequest(query="open the valve line pressure", k=10, kinds=frozenset({"summary"}))
    ).to_json()["results"]
    assert found and all(r["kind"] == "summary" for r in found)
    by_path = {tuple(r["heading_path"][1:]): r for r in found}
    hit = by_path[("1 Operation", "1.1 Opening")]
    assert hit["review"] == "corrected"
    assert hit["text"] == CORRECTION
    assert {r["review"] for r in found if r is not hit} == {"pending"}
