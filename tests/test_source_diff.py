"""What changed in a reviewed node's source: the word diff, and ``GET /v1/nodes/{id}/source-diff``.

The diff runs on plain texts; the route on the real app over a real SQLite catalog, with the
audit tests' manual and scripted summarizer (``tests/audit_support.py``): a node is reviewed, the
document re-ingested with its source changed, and the diff read back over HTTP.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from indexer.index import Index
from indexer.settings import Settings
from indexer.text_diff import DiffOp, diff_texts, sentence_units
from tests.audit_support import DOC, MANUAL, audit_index, ingest_manual, node_by_title
from tests.http_support import Service, service

OLD = (
    "Replace the seal only if the leakage exceeds 10 drops per minute. Do not start the pump "
    "before the casing is filled with liquid.\n\n1. Drain the casing.\n2. Open the cover."
)


def _side(ops: list[DiffOp], kinds: tuple[str, ...]) -> str:
    return "".join(op.text for op in ops if op.op in kinds)


# the diff --------------------------------------------------------------------------------------
def test_sentence_units_give_the_text_back() -> None:
    units = sentence_units(OLD)
    assert "".join(units) == OLD
    assert len(units) == 4
    assert units[0] == "Replace the seal only if the leakage exceeds 10 drops per minute."


def test_a_changed_value_is_one_word_removed_and_one_added() -> None:
    new = OLD.replace("10 drops", "12 drops")
    ops = diff_texts(OLD, new)
    changed = [(op.op, op.text.strip()) for op in ops if op.op != "equal"]
    assert changed == [("removed", "10"), ("added", "12")]
    assert _side(ops, ("equal", "added")) == new
    assert _side(ops, ("equal", "removed")) == OLD


def test_sentences_added_and_removed_whole() -> None:
    new = OLD.replace(" Do not start the pump before the casing is filled with liquid.", "")
    new += "\n3. Fit a new gasket."
    ops = diff_texts(OLD, new)
    removed = [op.text for op in ops if op.op == "removed"]
    added = [op.text for op in ops if op.op == "added"]
    assert [t.strip() for t in removed] == [
        "Do not start the pump before the casing is filled with liquid."
    ]
    assert [t.strip() for t in added] == ["3. Fit a new gasket."]
    assert _side(ops, ("equal", "added")) == new


def test_rewrapped_lines_are_no_change() -> None:
    new = OLD.replace("pump before", "pump\nbefore")
    assert [op.op for op in diff_texts(OLD, new)] == ["equal"]
    assert diff_texts(OLD, OLD) == [DiffOp("equal", OLD)]


def test_one_text_empty() -> None:
    assert diff_texts("", "New text.") == [DiffOp("added", "New text.")]
    assert diff_texts("Old text.", "") == [DiffOp("removed", "Old text.")]


# over HTTP -------------------------------------------------------------------------------------
@pytest.fixture
def index(tmp_path: Any) -> Iterator[Index]:
    idx = audit_index(Settings(store=tmp_path / "store", embedder="hashing", keep_revisions=2))
    ingest_manual(idx)
    yield idx
    idx.close()


@pytest.fixture
def svc(index: Index) -> Iterator[Service]:
    with service(index.settings, index=index) as s:
        yield s


def _node_id(index: Index, title: str) -> str:
    return str(node_by_title(index.tree(DOC), title)["node_id"])


def _diff(svc: Service, node_id: str, role: str = "auditor") -> Any:
    return svc.client.get(f"/v1/nodes/{node_id}/source-diff", headers=svc.as_role(role))


def _approve(svc: Service, node_id: str) -> None:
    r = svc.client.post(
        f"/v1/nodes/{node_id}/review", json={"status": "approved"}, headers=svc.as_role("auditor")
    )
    assert r.status_code == 201, r.text


def test_a_stale_review_shows_what_changed_in_its_source(svc: Service, index: Index) -> None:
    old_id = _node_id(index, "1.1 Replacement")
    body = _diff(svc, old_id).json()
    assert body["status"] == "not_reviewed" and body["review"] is None and body["ops"] == []
    _approve(svc, old_id)
    body = _diff(svc, old_id).json()
    assert body["status"] == "unchanged" and body["reviewed_node_id"] == old_id
    old_revision = body["revision"]

    ingest_manual(index, MANUAL.replace("10 drops per minute", "12 drops per minute"))
    new_id = _node_id(index, "1.1 Replacement")
    r = _diff(svc, new_id)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "changed" and "changed since it was reviewed" in body["message"]
    assert body["node_id"] == new_id and body["reviewed_node_id"] == old_id
    assert body["reviewed_revision"] == old_revision != body["revision"]
    assert body["review"]["status"] == "approved" and body["review"]["reviewer"] == "test-auditor"
    changed = [(op["op"], op["text"].strip()) for op in body["ops"] if op["op"] != "equal"]
    assert changed == [("removed", "10"), ("added", "12")]
    assert body["words"] == {"added": 1, "removed": 1}
    current = index.catalog.node(new_id)
    assert current is not None
    text = index.catalog.build_text(current["build_id"])
    text = text[current["char_start"] : current["char_end"]]
    assert "".join(op["text"] for op in body["ops"] if op["op"] != "removed") == text
    # The node beside it kept its source: nothing to compare for it.
    assert _diff(svc, _node_id(index, "1.2 Inspection")).json()["status"] == "not_reviewed"


def test_a_correction_is_compared_with_its_source_too(svc: Service, index: Index) -> None:
    node_id = _node_id(index, "1.1 Replacement")
    text = "Replace the seal only if the leakage exceeds 10 drops per minute."
    r = svc.client.post(
        f"/v1/nodes/{node_id}/review",
        json={"status": "corrected", "text": text},
        headers=svc.as_role("auditor"),
    )
    assert r.status_code == 201, r.text
    ingest_manual(index, MANUAL.replace("Do not start the pump", "Never start the pump"))
    body = _diff(svc, _node_id(index, "1.1 Replacement")).json()
    assert body["status"] == "changed" and body["review"]["corrected_text"] == text
    changed = [(op["op"], op["text"].strip()) for op in body["ops"] if op["op"] != "equal"]
    assert changed == [("removed", "Do not"), ("added", "Never")]


def test_a_pruned_review_build_is_found_by_its_hash_or_said_gone(
    svc: Service, index: Index
) -> None:
    old_id = _node_id(index, "1.1 Replacement")
    _approve(svc, old_id)
    # Two revisions that leave 1.1 alone: its review still applies, nothing pins the build it
    # was made in, and the retention (2 kept) drops it; the same source is in the newest.
    ingest_manual(index, MANUAL.replace("lithium grease", "lithium-complex grease"))
    v3 = MANUAL.replace("lithium grease", "calcium grease")
    ingest_manual(index, v3)
    kept_id = _node_id(index, "1.1 Replacement")
    assert index.catalog.node(old_id) is None and kept_id != old_id
    v4 = v3.replace("10 drops", "12 drops")
    ingest_manual(index, v4)
    body = _diff(svc, _node_id(index, "1.1 Replacement")).json()
    assert body["status"] == "changed" and body["reviewed_node_id"] == kept_id
    assert [op["text"].strip() for op in body["ops"] if op["op"] == "removed"] == ["10"]

    # Two more that leave 1.1 alone: the last build holding the reviewed source goes too.
    ingest_manual(index, v4.replace("record", "log"))
    ingest_manual(index, v4.replace("record", "note"))
    assert index.catalog.node(kept_id) is None
    body = _diff(svc, _node_id(index, "1.1 Replacement")).json()
    assert body["status"] == "pruned" and "no longer kept" in body["message"]
    assert body["ops"] == [] and body["reviewed_revision"] is None
    assert body["review"]["status"] == "approved"


def test_source_diff_errors(svc: Service, index: Index) -> None:
    passage = node_by_title(index.tree(DOC), "1.1 Replacement")["children"][0]["node_id"]
    r = _diff(svc, passage)
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"
    assert "passage" in r.json()["error"]["message"]
    r = _diff(svc, "no-such-node")
    assert r.status_code == 404
    assert r.json()["error"] == {
        "code": "not_found",
        "message": "no node 'no-such-node'",
        "detail": {"node_id": "no-such-node"},
    }
    r = _diff(svc, _node_id(index, "1 Seals"), role="reader")
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    r = svc.client.get(f"/v1/nodes/{_node_id(index, '1 Seals')}/source-diff")
    assert r.status_code == 401
