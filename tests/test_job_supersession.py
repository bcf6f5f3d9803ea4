"""A job left behind by a crash never rolls a document back once a newer revision is served.

The crash is simulated on the real store: a job row is created and marked running, as a killed
server leaves it; the next service start recovers it.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from indexer.index import Index, open_catalog
from indexer.settings import Settings
from tests.http_support import service

pytestmark = pytest.mark.backends

DOC = "guide.md"


def _manual(version: str) -> bytes:
    return (
        f"# Guide {version}\n\n## Setup\n\nInstall the {version} pump on a level floor.\n\n"
        f"## Care\n\nClean the {version} filter every week.\n"
    ).encode()


def _left_behind(settings: Settings, data: bytes, *, running: bool) -> str:
    """A job as a killed server leaves it: its upload kept, the row running (or queued)."""
    catalog = open_catalog(settings)
    uploads = settings.store / "uploads"
    uploads.mkdir(parents=True, exist_ok=True)
    job_id = uuid.uuid4().hex
    path = uploads / job_id
    path.write_bytes(data)
    catalog.jobs.create(job_id=job_id, doc_id=DOC, filename=DOC, upload=path, size=len(data))
    if running:
        assert catalog.jobs.start(job_id)
    catalog.close()
    return job_id


def _served(settings: Settings) -> str:
    catalog = open_catalog(settings)
    row = catalog.document(DOC)
    catalog.close()
    assert row is not None
    return str(row["revision"])


def test_retrying_an_interrupted_job_after_a_newer_revision_is_refused(
    fast_settings: Settings,
) -> None:
    settings = fast_settings
    with service(settings) as svc:
        svc.ingest(DOC, _manual("v1"))
    job_id = _left_behind(settings, _manual("v2"), running=True)

    with service(settings) as svc:
        editor = svc.as_role("editor")
        job = svc.client.get(f"/v1/jobs/{job_id}", headers=editor).json()
        assert job["error"]["code"] == "interrupted" and job["retryable"] is True
        newer = svc.ingest(DOC, _manual("v3"))
        rev3 = newer["report"]["documents"][0]["revision"]

        job = svc.client.get(f"/v1/jobs/{job_id}", headers=editor).json()
        assert job["status"] == "failed"
        assert job["error"]["code"] == "superseded"
        assert job["retryable"] is False
        r = svc.client.post(f"/v1/jobs/{job_id}/retry", headers=editor)
        assert r.status_code == 409, r.text
        error = r.json()["error"]
        assert error["code"] == "superseded"
        assert rev3[:12] in error["message"]
        assert error["detail"]["served_revision"] == rev3
        assert _served(settings) == rev3
    assert not list((settings.store / "uploads").iterdir())


def test_a_cli_ingest_while_the_server_is_down_supersedes_older_jobs(
    tmp_path: Path, fast_settings: Settings
) -> None:
    settings = fast_settings
    interrupted = _left_behind(settings, _manual("v1"), running=True)
    queued = _left_behind(settings, _manual("v2"), running=False)
    folder = tmp_path / "manuals"
    folder.mkdir()
    (folder / DOC).write_bytes(_manual("v3"))
    index = Index(settings)
    (doc,) = index.ingest_paths([folder]).documents
    index.close()

    with service(settings) as svc:
        editor = svc.as_role("editor")
        for job_id in (interrupted, queued):
            job = svc.wait_job(job_id)
            assert job["error"]["code"] == "superseded", job
            assert svc.client.post(f"/v1/jobs/{job_id}/retry", headers=editor).status_code == 409
        assert _served(settings) == doc.revision


def test_a_deleted_document_is_not_brought_back_by_a_retry(fast_settings: Settings) -> None:
    settings = fast_settings
    with service(settings) as svc:
        svc.ingest(DOC, _manual("v1"))
    job_id = _left_behind(settings, _manual("v2"), running=True)

    with service(settings) as svc:
        editor = svc.as_role("editor")
        assert svc.client.delete(f"/v1/documents/{DOC}", headers=editor).status_code < 300
        r = svc.client.post(f"/v1/jobs/{job_id}/retry", headers=editor)
        assert r.status_code == 409, r.text
        assert "deleted" in r.json()["error"]["message"]
        docs = svc.client.get("/v1/documents", headers=editor).json()["documents"]
        assert [d for d in docs if d["doc_id"] == DOC] == []
