"""The real app over HTTP: upload a manual, follow its job, query it, browse it, delete it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from indexer.index import Index
from indexer.settings import Settings
from tests.http_support import FIXTURES, Service, bearer, service

MANUAL = "pump-x200.md"
TIMED_STAGES = {
    "open", "read", "parse", "chunk", "embed", "cluster", "summarize", "store", "prune",
    "publish", "other",
}  # fmt: skip


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("http-flow")


@pytest.fixture(scope="module")
def svc(store: Path) -> Iterator[Service]:
    with service(Settings(store=store / "store", embedder="hashing")) as s:
        yield s


@pytest.fixture(scope="module")
def first_job(svc: Service) -> dict[str, Any]:
    data = (FIXTURES / MANUAL).read_bytes()
    r = svc.upload(MANUAL, data)
    assert r.status_code == 202, r.text
    body = r.json()
    assert set(body) == {"job_id", "doc_id", "status"}
    assert body["doc_id"] == MANUAL
    assert r.headers["location"] == f"/v1/jobs/{body['job_id']}"
    return svc.wait_job(body["job_id"])


def _walk(node: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
    stack: list[tuple[dict[str, Any], dict[str, Any] | None]] = [(node, None)]
    while stack:
        n, parent = stack.pop()
        yield n, parent
        stack.extend((c, n) for c in n["children"])


def _strip_seconds(report: dict[str, Any]) -> dict[str, Any]:
    """The report without its timings (the whole build's and each stage's seconds)."""
    assert set(report.get("stages", {})) <= TIMED_STAGES, report.get("stages")
    return {k: v for k, v in report.items() if k not in ("seconds", "stages")}


def test_the_job_finishes_with_progress_and_the_cli_report(
    svc: Service, first_job: dict[str, Any], store: Path
) -> None:
    assert first_job["status"] == "done", first_job
    assert first_job["error"] is None
    progress = first_job["progress"]
    assert progress["nodes_total"] > 0 and progress["nodes_done"] == progress["nodes_total"]
    # A finished job reads as complete, not as "0 of 0".
    assert progress["stage"] == "done" and progress["total"] > 0
    assert progress["done"] == progress["total"]
    assert progress["summarizer_calls"] == first_job["report"]["summarizer_calls"] > 0
    assert {"parse", "embed", "summarize", "store"} <= set(progress["stages"])
    # The same JSON as `overstory ingest --json` for the same file in a fresh store.
    cli = Index(Settings(store=store / "cli-store", embedder="hashing"))
    expected = cli.ingest_bytes((FIXTURES / MANUAL).read_bytes(), doc_id=MANUAL).to_json()
    assert _strip_seconds(first_job["report"]) == _strip_seconds(expected)
    listed = svc.client.get("/v1/jobs", headers=svc.as_role("editor")).json()["jobs"]
    assert first_job["job_id"] in [j["job_id"] for j in listed]


def test_the_document_is_listed_with_its_revision(svc: Service, first_job: dict[str, Any]) -> None:
    r = svc.client.get("/v1/documents", headers=svc.as_role("reader"))
    assert r.status_code == 200
    (doc,) = r.json()["documents"]
    assert doc["doc_id"] == MANUAL
    assert doc["revision"] == first_job["report"]["documents"][0]["revision"]
    assert doc["passages"] == first_job["report"]["documents"][0]["passages"]


def test_query_returns_passages_of_the_served_revision(
    svc: Service, first_job: dict[str, Any]
) -> None:
    revision = first_job["report"]["documents"][0]["revision"]
    r = svc.client.post(
        "/v1/query",
        headers=svc.as_role("reader"),
        json={"query": "How do I replace the mechanical seal?", "k": 5},
    )
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert results
    assert all(res["doc_id"] == MANUAL and res["revision"] == revision for res in results)


def test_browse_the_tree_and_a_node(svc: Service, first_job: dict[str, Any]) -> None:
    r = svc.client.get(f"/v1/documents/{MANUAL}/tree", headers=svc.as_role("reader"))
    assert r.status_code == 200
    root = r.json()
    assert root["level"] == "document"
    inner = [
        (n, p)
        for n, p in _walk(root)
        if n["level"] in ("chapter", "section") and n["children"] and p is not None
    ]
    node, parent = max(inner, key=lambda np: np[0]["covers"]["passages"])
    r = svc.client.get(f"/v1/nodes/{node['node_id']}", headers=svc.as_role("reader"))
    assert r.status_code == 200
    detail = r.json()
    assert detail["node"]["node_id"] == node["node_id"]
    assert detail["node"]["served"] is True
    assert detail["node"]["summary"] == node["summary"]
    assert detail["node"]["revision"] == first_job["report"]["documents"][0]["revision"]
    assert detail["parent"]["node_id"] == parent["node_id"]
    assert [c["node_id"] for c in detail["children"]] == [c["node_id"] for c in node["children"]]
    below = [n["node_id"] for n, _ in _walk(node) if n["level"] == "passage"]
    assert detail["passages_total"] == node["covers"]["passages"] == len(below)
    assert {p["node_id"] for p in detail["passages"]} == set(below)
    assert detail["passages"][0]["node_id"] == node["covers"]["first"]
    assert all(p["level"] == "passage" and p["text"] for p in detail["passages"])
    # paging through the covered passages
    r = svc.client.get(
        f"/v1/nodes/{node['node_id']}?passages_limit=1&passages_offset=1",
        headers=svc.as_role("reader"),
    )
    assert [p["node_id"] for p in r.json()["passages"]] == [detail["passages"][1]["node_id"]]
    r = svc.client.get("/v1/nodes/no-such-node", headers=svc.as_role("reader"))
    assert r.status_code == 404


def test_reuploading_unchanged_is_a_noop_job(svc: Service, first_job: dict[str, Any]) -> None:
    job = svc.ingest(MANUAL, (FIXTURES / MANUAL).read_bytes())
    (doc,) = job["report"]["documents"]
    assert doc["status"] == "unchanged"
    assert job["report"]["summarizer_calls"] == 0 and job["report"]["embedded"] == 0


def test_a_changed_revision_reuses_cached_summaries(
    svc: Service, first_job: dict[str, Any]
) -> None:
    text = (FIXTURES / MANUAL).read_text()
    changed = text.replace("seal", "gasket seal", 1).encode()
    job = svc.ingest(MANUAL, changed)
    (doc,) = job["report"]["documents"]
    assert doc["status"] == "changed"
    assert job["report"]["cache_hits"] > job["report"]["summarizer_calls"] > 0
    listed = svc.client.get("/v1/documents", headers=svc.as_role("reader")).json()["documents"]
    assert (
        listed[0]["revision"] == doc["revision"] != first_job["report"]["documents"][0]["revision"]
    )


def test_doc_ids_with_slashes(svc: Service) -> None:
    doc_id = "manuals/pump/x200 v2.md"
    svc.ingest("x200.md", b"# Pump\n\n## Seals\n\nReplace the seal yearly.\n", doc_id=doc_id)
    r = svc.client.get(f"/v1/documents/{doc_id}/tree", headers=svc.as_role("reader"))
    assert r.status_code == 200 and r.json()["level"] == "document"
    r = svc.client.delete(f"/v1/documents/{doc_id}", headers=svc.as_role("editor"))
    assert r.status_code == 200 and r.json() == {"deleted": doc_id}
    r = svc.client.get(f"/v1/documents/{doc_id}/tree", headers=svc.as_role("reader"))
    assert r.status_code == 404


def test_keys_over_http(svc: Service) -> None:
    r = svc.client.post(
        "/v1/keys", headers=svc.as_role("admin"), json={"role": "reader", "name": "chatbot"}
    )
    assert r.status_code == 201
    created = r.json()
    assert created["key"].startswith("ovs_") and created["role"] == "reader"
    assert svc.client.get("/v1/documents", headers=bearer(created["key"])).status_code == 200
    listed = svc.client.get("/v1/keys", headers=svc.as_role("admin")).json()["keys"]
    assert created["key_id"] in [k["key_id"] for k in listed]
    assert all("key" not in k for k in listed)
    r = svc.client.delete(f"/v1/keys/{created['key_id']}", headers=svc.as_role("admin"))
    assert r.status_code == 200 and r.json()["active"] is False
    r = svc.client.get("/v1/documents", headers=bearer(created["key"]))
    assert r.status_code == 401
    assert r.json()["error"]["message"] == "this API key was revoked"


def test_health_and_metrics(svc: Service, first_job: dict[str, Any]) -> None:
    r = svc.client.get("/healthz")
    assert r.status_code == 200
    assert r.json()["status"] == "ok" and r.json()["documents"] == 1
    r = svc.client.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    text = r.text
    assert 'overstory_http_requests_total{method="POST",route="/v1/documents",status="202"}' in text
    assert 'route="/v1/documents/{doc_id}/tree"' in text
    assert (
        'overstory_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/healthz"}'
        in text
    )
    assert "overstory_documents 1" in text
    assert 'overstory_jobs{status="done"}' in text
    assert 'overstory_nodes{level="passage"}' in text
    r = svc.client.get("/v1/check", headers=svc.as_role("admin"))
    assert r.status_code == 200 and r.json()["consistent"] is True
    assert r.json()["vectors_expected"] > 0


def test_a_done_job_cannot_be_retried(svc: Service, first_job: dict[str, Any]) -> None:
    r = svc.client.post(f"/v1/jobs/{first_job['job_id']}/retry", headers=svc.as_role("editor"))
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "conflict"


def test_delete_the_document(svc: Service, first_job: dict[str, Any]) -> None:
    r = svc.client.delete(f"/v1/documents/{MANUAL}", headers=svc.as_role("editor"))
    assert r.status_code == 200
    assert svc.client.get("/v1/documents", headers=svc.as_role("reader")).json() == {
        "documents": []
    }
    r = svc.client.get(f"/v1/documents/{MANUAL}/tree", headers=svc.as_role("reader"))
    assert r.status_code == 404
    assert r.json()["error"]["code"] == "not_found"
    assert svc.app.state.index.check()["consistent"]
    r = svc.client.delete(f"/v1/documents/{MANUAL}", headers=svc.as_role("editor"))
    assert r.status_code == 404
