"""``kill -9`` of a real ``overstory serve`` in the middle of an ingestion job, then a restart.

The job is reported failed (``interrupted``, retryable); the half-built revision is never served;
re-submitting the document completes and computes only the summaries the killed job had not
committed yet.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.service.keys import KeyStore
from indexer.index import Index
from indexer.settings import Settings
from indexer.store.catalog import Catalog
from tests.http_support import ServerProcess, bearer, big_manual

SECTIONS = 300
DOC = "big-manual.md"


def _summaries(db_path: Path) -> int:
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=30)
    try:
        return int(db.execute("SELECT COUNT(*) FROM summaries").fetchone()[0])
    finally:
        db.close()


def _wait(client: httpx.Client, job_id: str, headers: dict[str, str]) -> dict[str, Any]:
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        job: dict[str, Any] = client.get(f"/v1/jobs/{job_id}", headers=headers).json()
        if job["status"] in ("done", "failed"):
            return job
        time.sleep(0.2)
    raise TimeoutError(job_id)


def _served_revision(client: httpx.Client, headers: dict[str, str]) -> str:
    docs = client.get("/v1/documents", headers=headers).json()["documents"]
    (doc,) = [d for d in docs if d["doc_id"] == DOC]
    return str(doc["revision"])


@pytest.mark.slow
def test_kill_9_during_a_job_then_restart(tmp_path: Path) -> None:
    store = tmp_path / "store"
    db_path = store / "overstory.db"
    key, _ = KeyStore(Catalog(db_path)).create(role="editor", name="crash-test")
    headers = bearer(key)
    v1, v2 = big_manual(SECTIONS, seed="v1"), big_manual(SECTIONS, seed="v2")
    log = tmp_path / "server.log"

    server = ServerProcess(store, log=log).start()
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            first = client.post("/v1/documents", headers=headers, files={"file": (DOC, v1)})
            job1 = _wait(client, first.json()["job_id"], headers)
            assert job1["status"] == "done", job1
            rev1 = job1["report"]["documents"][0]["revision"]
            before = _summaries(db_path)

            r = client.post("/v1/documents", headers=headers, files={"file": (DOC, v2)})
            assert r.status_code == 202
            job_id = r.json()["job_id"]
            # Kill once the job has committed at least one batch of new summaries.
            deadline = time.monotonic() + 300
            while _summaries(db_path) < before + 64:
                assert time.monotonic() < deadline, "the job never got to summarizing"
                job = client.get(f"/v1/jobs/{job_id}", headers=headers).json()
                assert job["status"] in ("queued", "running"), f"finished too soon: {job}"
                assert _served_revision(client, headers) == rev1
                time.sleep(0.02)
            server.kill9()
    finally:
        server.stop()
    precomputed = _summaries(db_path) - before
    assert precomputed >= 64

    # The store as the killed server left it: the old revision is still the served one.
    catalog = Catalog(db_path)
    assert catalog.document(DOC)["revision"] == rev1  # type: ignore[index]
    assert (
        catalog.db.execute(
            "SELECT COUNT(*) FROM builds WHERE doc_id = ? AND status = 'building'", (DOC,)
        ).fetchone()[0]
        == 1
    )
    catalog.close()

    server = ServerProcess(store, log=log).start()
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            job = client.get(f"/v1/jobs/{job_id}", headers=headers).json()
            assert job["status"] == "failed"
            assert job["error"]["code"] == "interrupted"
            assert job["retryable"] is True
            assert _served_revision(client, headers) == rev1
            tree = client.get(f"/v1/documents/{DOC}/tree", headers=headers).json()
            assert tree["title"] == "Big Manual v1"
            if client.get("/openapi.json").json()["paths"].get("/v1/query"):
                res = client.post(
                    "/v1/query", headers=headers, json={"query": "tighten bolt M6", "k": 10}
                ).json()["results"]
                assert res and all(x["revision"] == rev1 for x in res if x["doc_id"] == DOC)

            # Re-submit: only the summaries the killed job had not committed are computed.
            r = client.post("/v1/documents", headers=headers, files={"file": (DOC, v2)})
            again = _wait(client, r.json()["job_id"], headers)
            assert again["status"] == "done", again
            (doc,) = again["report"]["documents"]
            assert doc["status"] == "changed"
            assert again["report"]["cache_hits"] == precomputed
            assert again["report"]["summarizer_calls"] + precomputed == doc["summaries"]
            rev2 = doc["revision"]
            assert _served_revision(client, headers) == rev2 != rev1

            # The interrupted job kept its upload: retrying it is now a no-op.
            r = client.post(f"/v1/jobs/{job_id}/retry", headers=headers)
            assert r.status_code == 202
            retried = _wait(client, r.json()["job_id"], headers)
            assert retried["retry_of"] == job_id
            assert retried["report"]["documents"][0]["status"] == "unchanged"
    finally:
        server.stop()

    index = Index(Settings(store=store, embedder="hashing"))
    check = index.check()
    assert check["consistent"], check
    assert not list((store / "uploads").iterdir())
