"""The audit workflow: the queue's order, reviews, corrections served, stale corrections, the log.

Real SQLite and Chroma in temporary folders, the hashing embedder, and a scripted summarizer whose
summaries have known lint flags (``tests/audit_support.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

import api.service.audit as audit_service
from api.service.audit import corrections, effective_summary
from indexer.errors import (
    CatalogIntegrityError,
    ConflictError,
    InvalidRequestError,
    NotFoundError,
)
from indexer.index import Index
from indexer.reviews import review_states_by_id
from indexer.settings import Settings
from tests.audit_support import DOC, MANUAL, audit_index, ingest_manual, node_by_title
from tests.helpers import catalog_env, run_cli
from tests.http_support import FIXTURES, Service, service

pytestmark = pytest.mark.backends


@pytest.fixture
def index(fast_settings: Settings) -> Iterator[Index]:
    idx = audit_index(fast_settings)
    ingest_manual(idx)
    yield idx
    idx.close()


# The service answers typed models; these read them as their JSON bodies (what HTTP sends).
def queue(*args: Any, **kwargs: Any) -> dict[str, Any]:
    return audit_service.queue(*args, **kwargs).model_dump(mode="json")


def review(*args: Any, **kwargs: Any) -> dict[str, Any]:
    return audit_service.review(*args, **kwargs).model_dump(mode="json")


def audit_log(*args: Any, **kwargs: Any) -> dict[str, Any]:
    return audit_service.audit_log(*args, **kwargs).model_dump(mode="json")


def _titles(result: dict[str, Any]) -> list[str]:
    return [item["node"]["title"] for item in result["items"]]


def _node_id(index: Index, title: str) -> str:
    return str(node_by_title(index.tree(DOC), title)["node_id"])


# the queue -------------------------------------------------------------------------------------
def test_queue_puts_likeliest_faults_first_then_top_levels(index: Index) -> None:
    result = queue(index.catalog)
    assert _titles(result) == [
        "1.2 Inspection",  # an invented number: such flags nearly always hold a real fault
        "1.1 Replacement",  # a dropped condition and a dropped negation: noisier rules
        "Seal Manual",  # no flags: top levels first, then document order
        "1 Seals",
        "2 Bearings",
    ]
    first, second = result["items"][0], result["items"][1]
    assert [f["kind"] for f in first["flags"]] == ["number"]
    assert "5,000" in first["flags"][0]["summary_text"]
    assert {f["kind"] for f in second["flags"]} == {"condition", "negation"}
    assert first["flags"][0]["rule"] == "number.absent"
    assert {f["rule"] for f in second["flags"]} == {"condition.clause", "negation.dropped"}
    assert first["flags"][0]["confidence"] > max(f["confidence"] for f in second["flags"])
    assert all(0.0 < f["confidence"] < 1.0 for f in first["flags"] + second["flags"])
    assert result["counts"]["pending"] == 5 and result["total"] == 5
    assert second["review"] is None and second["stale"] is False


def test_queue_item_links_to_its_sources(index: Index) -> None:
    item = queue(index.catalog)["items"][1]
    node = item["node"]
    assert node["summary"].startswith("Replace the seal when")
    assert node["doc_id"] == DOC and node["level"] == "section"
    assert node["heading_path"] == ["Seal Manual", "1 Seals", "1.1 Replacement"]
    assert item["sources"]["passages"] == 1
    assert item["sources"]["first"] == item["sources"]["last"]
    passage = index.catalog.node(item["sources"]["first"])
    assert passage is not None and "only if" in passage["text"]


def test_queue_pages_filters_and_validates(index: Index) -> None:
    page = queue(index.catalog, limit=2, offset=1)
    assert _titles(page) == ["1.1 Replacement", "Seal Manual"] and page["total"] == 5
    assert queue(index.catalog, doc_ids=[DOC])["total"] == 5
    with pytest.raises(NotFoundError):
        queue(index.catalog, doc_ids=["no-such.md"])
    with pytest.raises(InvalidRequestError):
        queue(index.catalog, status="done")
    with pytest.raises(InvalidRequestError):
        queue(index.catalog, limit=0)


def test_lint_flags_are_cached_by_summary_key(index: Index) -> None:
    queue(index.catalog)
    rows = index.catalog.db.execute("SELECT summary_key, flags FROM lint_flags").fetchall()
    assert len(rows) == 5
    kinds = sorted(f["kind"] for r in rows for f in json.loads(r["flags"]))
    assert kinds == ["condition", "negation", "number"]


# reviews ---------------------------------------------------------------------------------------
def test_approve_moves_a_node_out_of_pending(index: Index) -> None:
    node_id = _node_id(index, "1.2 Inspection")
    result = review(index.catalog, node_id, status="approved", note="fine", reviewer="ana")
    assert result["review"]["status"] == "approved" and result["review"]["reviewer"] == "ana"
    assert [f["kind"] for f in result["flags"]] == ["number"]  # what was approved, flags and all
    assert "1.2 Inspection" not in _titles(queue(index.catalog))
    assert _titles(queue(index.catalog, status="approved")) == ["1.2 Inspection"]
    node = node_by_title(index.tree(DOC), "1.2 Inspection")
    assert node["review"]["status"] == "approved" and node["review"]["corrected"] is False
    assert node["summary"] == result["node"]["summary"]  # the machine summary, unchanged


def test_correction_is_linted_and_served(index: Index) -> None:
    node_id = _node_id(index, "1.1 Replacement")
    text = (
        "Replace the seal only if the leakage exceeds 10 drops per minute. Do not start the pump "
        "before the casing is filled with liquid; tighten the gland to 99 Nm."
    )
    result = review(index.catalog, node_id, status="corrected", corrected_text=text, reviewer="ana")
    assert [f["kind"] for f in result["flags"]] == ["number"]
    assert "99" in result["flags"][0]["summary_text"]
    assert result["review"]["corrected_text"] == text
    assert result["node"]["summary"] == text

    node = node_by_title(index.tree(DOC), "1.1 Replacement")
    assert node["summary"] == text
    assert node["summarizer"] == {
        "backend": "expert",
        "model": "ana",
        "prompt_version": "correction",
    }
    assert node["review"]["corrected"] is True and node["review"]["reviewer"] == "ana"
    assert node["review"]["machine_summary"].startswith("Replace the seal when")
    row = index.catalog.node(node_id)
    assert row is not None
    assert effective_summary(index.catalog, row)[0] == text
    assert corrections(index.catalog, DOC) == {row["hash"]: text}
    listed = queue(index.catalog, status="corrected")["items"]
    assert [i["node"]["title"] for i in listed] == ["1.1 Replacement"]
    assert listed[0]["flags"] == result["flags"]  # the correction's flags


def test_a_faithful_correction_has_no_flags(index: Index) -> None:
    node_id = _node_id(index, "1.2 Inspection")
    text = "Inspect the seal faces every 2,000 operating hours and record the wear."
    result = review(index.catalog, node_id, status="corrected", corrected_text=text, reviewer="ana")
    assert result["flags"] == []


def test_a_heading_labels_a_correction_without_stating_its_numbers(index: Index) -> None:
    # The heading "1.2 Inspection" is linted as a label: its outline number is no quantity a
    # correction may cite.
    node_id = _node_id(index, "1.2 Inspection")
    text = "Inspect the seal faces every 1.2 operating hours and record the wear."
    result = review(index.catalog, node_id, status="corrected", corrected_text=text, reviewer="ana")
    assert [f["kind"] for f in result["flags"]] == ["number"]
    assert result["flags"][0]["summary_quote"] == "1.2"


def test_approving_a_correction_keeps_it_and_rejecting_drops_it(index: Index) -> None:
    node_id = _node_id(index, "1.2 Inspection")
    text = "Inspect the seal faces every 2,000 operating hours."
    review(index.catalog, node_id, status="corrected", corrected_text=text, reviewer="ana")
    review(index.catalog, node_id, status="approved", reviewer="ben")
    node = node_by_title(index.tree(DOC), "1.2 Inspection")
    assert node["summary"] == text and node["review"]["status"] == "approved"
    review(index.catalog, node_id, status="rejected", note="wrong interval", reviewer="cy")
    node = node_by_title(index.tree(DOC), "1.2 Inspection")
    assert node["summary"].startswith("Inspect the seal faces every 5,000")
    assert node["review"]["status"] == "rejected" and node["review"]["note"] == "wrong interval"
    assert corrections(index.catalog, DOC) == {}


@pytest.mark.parametrize(
    ("status", "text", "error"),
    [
        ("corrected", None, InvalidRequestError),
        ("corrected", "   ", InvalidRequestError),
        ("approved", "a text for an approval", InvalidRequestError),
        ("done", None, InvalidRequestError),
        ("corrected", "x" * 20_001, InvalidRequestError),
    ],
)
def test_invalid_reviews_are_refused(
    index: Index, status: str, text: str | None, error: type[Exception]
) -> None:
    node_id = _node_id(index, "1.1 Replacement")
    with pytest.raises(error):
        review(index.catalog, node_id, status=status, corrected_text=text, reviewer="ana")
    assert index.catalog.db.execute("SELECT COUNT(*) FROM reviews").fetchone()[0] == 0


def test_passages_and_unknown_nodes_are_refused(index: Index) -> None:
    passage = node_by_title(index.tree(DOC), "1.1 Replacement")["children"][0]
    assert passage["level"] == "passage"
    with pytest.raises(InvalidRequestError, match="passage"):
        review(index.catalog, passage["node_id"], status="approved", reviewer="ana")
    with pytest.raises(NotFoundError):
        review(index.catalog, "no-such-node", status="approved", reviewer="ana")


def test_a_node_of_a_superseded_revision_is_a_conflict(index: Index) -> None:
    old_id = _node_id(index, "1.2 Inspection")
    ingest_manual(index, MANUAL.replace("lithium grease", "lithium-complex grease"))
    new_id = _node_id(index, "1.2 Inspection")
    with pytest.raises(ConflictError) as caught:
        review(index.catalog, old_id, status="approved", reviewer="ana")
    assert caught.value.detail == {"node_id": old_id, "served_node_id": new_id}


# stale and kept corrections --------------------------------------------------------------------
def test_correction_goes_stale_when_its_source_changes(index: Index) -> None:
    node_id = _node_id(index, "1.1 Replacement")
    text = "Replace the seal only if the leakage exceeds 10 drops per minute."
    review(index.catalog, node_id, status="corrected", corrected_text=text, reviewer="ana")
    approved = _node_id(index, "2 Bearings")
    review(index.catalog, approved, status="approved", reviewer="ana")

    ingest_manual(index, MANUAL.replace("10 drops per minute", "12 drops per minute"))

    node = node_by_title(index.tree(DOC), "1.1 Replacement")
    assert node["node_id"] != node_id
    assert node["summary"].startswith("Replace the seal when")  # the correction no longer applies
    assert node["review"] is None
    pending = queue(index.catalog)
    first = pending["items"][0]
    assert first["node"]["node_id"] == node["node_id"]
    assert first["stale"] is True and first["status"] == "pending"
    assert "source changed" in first["reason"]
    assert first["review"]["corrected_text"] == text  # the old correction, to re-check against
    assert pending["counts"]["stale"] >= 1
    assert corrections(index.catalog, DOC) != {}  # kept for its hash, in case the text returns
    assert node_by_title(index.tree(DOC), "2 Bearings")["review"]["status"] == "approved"


def test_correction_is_kept_while_its_source_is_unchanged(index: Index) -> None:
    node_id = _node_id(index, "1.2 Inspection")
    text = "Inspect the seal faces every 2,000 operating hours."
    review(index.catalog, node_id, status="corrected", corrected_text=text, reviewer="ana")

    ingest_manual(index, MANUAL.replace("lithium grease", "lithium-complex grease"))

    node = node_by_title(index.tree(DOC), "1.2 Inspection")
    assert node["node_id"] != node_id  # a new build …
    assert node["summary"] == text  # … serving the same correction
    assert node["review"]["status"] == "corrected"
    assert not any(i["stale"] for i in queue(index.catalog, status="all")["items"])
    assert _titles(queue(index.catalog, status="corrected")) == ["1.2 Inspection"]


def test_a_rewritten_summary_reopens_an_approval(index: Index) -> None:
    node_id = _node_id(index, "1 Seals")
    review(index.catalog, node_id, status="approved", reviewer="ana")
    # Another summary text for the same source (as after a model change).
    index.catalog.db.execute(
        "UPDATE nodes SET summary_key = (SELECT summary_key FROM nodes WHERE node_id = ?)"
        " WHERE node_id = ?",
        (_node_id(index, "2 Bearings"), node_id),
    )
    item = next(i for i in queue(index.catalog)["items"] if i["node"]["node_id"] == node_id)
    assert item["status"] == "pending" and item["stale"] is False
    assert "rewritten" in item["reason"] and item["review"]["status"] == "approved"


# the log ---------------------------------------------------------------------------------------
def test_audit_log_records_every_review_and_is_append_only(index: Index) -> None:
    node_id = _node_id(index, "1.1 Replacement")
    review(index.catalog, node_id, status="rejected", note="drops the condition", reviewer="ana")
    review(index.catalog, node_id, status="corrected", corrected_text="Only if …", reviewer="ben")
    log = audit_log(index.catalog)
    assert log["total"] == 2
    newest, oldest = log["entries"]
    assert (newest["action"], newest["actor"]) == ("review.corrected", "ben")
    assert (oldest["action"], oldest["actor"]) == ("review.rejected", "ana")
    assert oldest["detail"]["note"] == "drops the condition"
    assert newest["detail"]["previous"]["status"] == "rejected"
    assert newest["node_id"] == node_id and newest["doc_id"] == DOC
    with pytest.raises(CatalogIntegrityError, match="append-only"):
        index.catalog.db.execute("DELETE FROM audit_log")
    with pytest.raises(CatalogIntegrityError, match="append-only"):
        index.catalog.db.execute("UPDATE audit_log SET actor = 'mallory'")


# HTTP ------------------------------------------------------------------------------------------
@pytest.fixture
def svc(fast_settings: Settings) -> Iterator[Service]:
    idx = audit_index(fast_settings)
    ingest_manual(idx)
    with service(fast_settings, index=idx) as s:
        yield s


def _tree(svc: Service) -> dict[str, Any]:
    r = svc.client.get(f"/v1/documents/{DOC}/tree", headers=svc.as_role("reader"))
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_http_queue_for_auditors_only(svc: Service) -> None:
    r = svc.client.get("/v1/audit/queue?all_flags=true", headers=svc.as_role("auditor"))
    assert r.status_code == 200, r.text
    assert [i["node"]["title"] for i in r.json()["items"]][:2] == [
        "1.2 Inspection",
        "1.1 Replacement",
    ]
    assert all(i["hidden_flags"] == 0 for i in r.json()["items"])
    # By default a flag less likely than lint_min_confidence to be a real fault is not shown
    # (it is counted), and the likeliest stays first.
    r = svc.client.get("/v1/audit/queue", headers=svc.as_role("auditor"))
    items = r.json()["items"]
    assert items[0]["node"]["title"] == "1.2 Inspection"
    for item in items:
        floor = svc.app.state.index.settings.lint_min_confidence
        assert all(f["confidence"] is None or f["confidence"] >= floor for f in item["flags"])
    assert sum(i["hidden_flags"] for i in items) >= 1
    r = svc.client.get("/v1/audit/queue", headers=svc.as_role("editor"))
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    r = svc.client.get(
        "/v1/audit/queue",
        params={"doc_id": DOC, "status": "all", "limit": 1},
        headers=svc.as_role("auditor"),
    )
    assert r.status_code == 200 and len(r.json()["items"]) == 1 and r.json()["total"] == 5
    r = svc.client.get(
        "/v1/audit/queue", params={"doc_id": "nope.md"}, headers=svc.as_role("auditor")
    )
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    r = svc.client.get("/v1/audit/queue", params={"status": "x"}, headers=svc.as_role("auditor"))
    assert r.status_code == 422


def test_http_review_correct_is_served_by_nodes_and_tree(svc: Service) -> None:
    node_id = node_by_title(_tree(svc), "1.1 Replacement")["node_id"]
    text = "Replace the seal only if the leakage exceeds 10 drops per minute; always 30 Nm."
    r = svc.client.post(
        f"/v1/nodes/{node_id}/review",
        json={"status": "corrected", "text": text, "note": "restored the condition"},
        headers=svc.as_role("auditor"),
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["review"]["reviewer"] == "test-auditor"
    assert sorted(f["kind"] for f in body["flags"]) == ["absolute", "number"]
    assert body["node"]["summary"] == text

    detail = svc.client.get(f"/v1/nodes/{node_id}", headers=svc.as_role("reader")).json()
    assert detail["node"]["summary"] == text
    assert detail["node"]["summarizer"]["backend"] == "expert"
    assert detail["node"]["review"]["status"] == "corrected"
    parent = detail["parent"]
    assert parent["title"] == "1 Seals" and parent["review"] is None
    assert node_by_title(_tree(svc), "1.1 Replacement")["summary"] == text

    log = svc.client.get("/v1/audit/log", headers=svc.as_role("auditor")).json()
    assert log["entries"][0]["action"] == "review.corrected"
    assert log["entries"][0]["detail"]["note"] == "restored the condition"


def test_http_approve_and_reject(svc: Service) -> None:
    tree = _tree(svc)
    for title, status in (("1.2 Inspection", "approved"), ("2 Bearings", "rejected")):
        node_id = node_by_title(tree, title)["node_id"]
        r = svc.client.post(
            f"/v1/nodes/{node_id}/review", json={"status": status}, headers=svc.as_role("admin")
        )
        assert r.status_code == 201, r.text
        assert r.json()["node"]["review"]["status"] == status
    r = svc.client.get(
        "/v1/audit/queue", params={"status": "rejected"}, headers=svc.as_role("auditor")
    )
    assert [i["node"]["title"] for i in r.json()["items"]] == ["2 Bearings"]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"status": "corrected"}, 422),
        ({"status": "corrected", "text": ""}, 422),
        ({"status": "approved", "text": "no text with an approval"}, 422),
        ({"status": "maybe"}, 422),
        ({"status": "approved", "corrected_text": "unknown field"}, 422),
        ({"status": "corrected", "text": "x" * 20_001}, 422),
        ({"status": "approved", "note": "x" * 2_001}, 422),
    ],
)
def test_http_invalid_reviews(svc: Service, body: dict[str, Any], status: int) -> None:
    node_id = node_by_title(_tree(svc), "1.1 Replacement")["node_id"]
    r = svc.client.post(f"/v1/nodes/{node_id}/review", json=body, headers=svc.as_role("auditor"))
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == "invalid_request"


def test_http_review_limits_are_in_the_detail(svc: Service) -> None:
    node_id = node_by_title(_tree(svc), "1.1 Replacement")["node_id"]
    url, headers = f"/v1/nodes/{node_id}/review", svc.as_role("auditor")
    for body, field, limit in (
        ({"status": "corrected", "text": "x" * 20_001}, "text", 20_000),
        ({"status": "approved", "note": "x" * 2_001}, "note", 2_000),
    ):
        r = svc.client.post(url, json=body, headers=headers)
        assert r.status_code == 422, r.text
        assert r.json()["error"]["detail"] == {"field": field, "limit": limit}
    r = svc.client.post(url, json={"status": "approved", "text": "why"}, headers=headers)
    assert r.json()["error"]["message"].startswith("text is only for status 'corrected'")


def test_http_review_of_missing_node_or_passage(svc: Service) -> None:
    headers = svc.as_role("auditor")
    r = svc.client.post("/v1/nodes/nope/review", json={"status": "approved"}, headers=headers)
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    passage = node_by_title(_tree(svc), "1.1 Replacement")["children"][0]["node_id"]
    r = svc.client.post(f"/v1/nodes/{passage}/review", json={"status": "approved"}, headers=headers)
    assert r.status_code == 422 and "passage" in r.json()["error"]["message"]
    r = svc.client.post(f"/v1/nodes/{passage}/review", json={"status": "approved"})
    assert r.status_code == 401


def test_http_ingest_lints_the_new_summaries_ahead_of_the_queue(fast_settings: Settings) -> None:
    with service(fast_settings) as s:
        s.ingest("pump-x200.md", (FIXTURES / "pump-x200.md").read_bytes())
        db = s.app.state.index.catalog.db
        linted = db.execute("SELECT COUNT(*) FROM lint_flags").fetchone()[0]
        summarized = db.execute(
            "SELECT COUNT(DISTINCT summary_key) FROM nodes WHERE summary_key IS NOT NULL"
        ).fetchone()[0]
        assert linted == summarized > 10


def test_audit_page_is_served_without_a_key(svc: Service) -> None:
    r = svc.client.get("/audit")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "Summary — not a quote" in r.text and "/audit/audit.js" in r.text
    assert "script-src 'self'" in r.headers["content-security-policy"]
    for name, kind in (("audit.js", "text/javascript"), ("audit.css", "text/css")):
        r = svc.client.get(f"/audit/{name}")
        assert r.status_code == 200 and r.headers["content-type"].startswith(kind)
    assert svc.client.get("/audit/secrets.txt").status_code == 404
    assert svc.client.get("/audit/..%2Fapp.py").status_code == 404


# CLI -------------------------------------------------------------------------------------------
def test_cli_lists_the_queue_and_reviews(fast_settings: Settings) -> None:
    idx = audit_index(fast_settings)
    ingest_manual(idx)
    store = str(fast_settings.store)
    env = {"OVERSTORY_EMBEDDER": "hashing", **catalog_env(fast_settings)}
    args = ("audit", "--store", store, "--json")
    _, listed, _ = run_cli(*args, "--limit", "2", "--all-flags", env=env)
    assert [i["node"]["title"] for i in listed["items"]] == ["1.2 Inspection", "1.1 Replacement"]
    _, shown, _ = run_cli(*args, env=env)  # flags below lint_min_confidence hidden, counted
    assert shown["items"][0]["node"]["title"] == "1.2 Inspection"
    assert sum(i["hidden_flags"] for i in shown["items"]) >= 1
    node_id = listed["items"][0]["node"]["node_id"]
    _, result, _ = run_cli(
        "audit", "review", node_id, "--correct", "Inspect the seal faces every 2,000 hours.",
        "--reviewer", "ana", "--store", store, "--json", env=env,
    )  # fmt: skip
    assert result["review"]["status"] == "corrected" and result["flags"] == []
    _, text, _ = run_cli("audit", "queue", "--status", "corrected", "--store", store, env=env)
    assert "1.2 Inspection" in text and "summary — not a quote" in text
    code, _, err = run_cli("audit", "review", node_id, "--store", store, env=env, check=False)
    assert code == 1 and "exactly one of" in err
    code, _, err = run_cli(
        "audit", "review", node_id, "--approve", "--note", "x" * 2_001, "--store", store,
        env=env, check=False,
    )  # fmt: skip
    assert code == 1 and "note" in err and "2000" in err
    _, log, _ = run_cli("audit", "log", "--store", store, "--json", env=env)
    assert log["entries"][0]["actor"] == "ana"
    idx.close()


def test_review_states_by_id_for_query_results(index: Index) -> None:
    corrected = _node_id(index, "1.2 Inspection")
    review(
        index.catalog, corrected, status="corrected", corrected_text="Every 2,000 h.", reviewer="a"
    )
    passage = node_by_title(index.tree(DOC), "1.1 Replacement")["children"][0]["node_id"]
    states = review_states_by_id(index.catalog, [corrected, passage, _node_id(index, "1 Seals")])
    assert states[corrected].correction == "Every 2,000 h."
    assert states[corrected].review is not None and states[corrected].review.status == "corrected"
    assert passage not in states  # passages are quotes: never reviewed
    assert states[_node_id(index, "1 Seals")].status == "pending"
