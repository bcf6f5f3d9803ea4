"""The cluster of ``make cluster`` started for a test: keys, uploads and waits over HTTP."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from api.service.keys import KeyStore
from indexer.index import open_catalog
from indexer.settings import Settings
from scripts.cluster import Cluster

# A short lease, so that a killed worker's job is taken over within seconds.
ENV = {
    "OVERSTORY_EMBEDDER": "hashing",
    "OVERSTORY_JOB_LEASE_SECONDS": "3",
    "OVERSTORY_MAX_QUEUED_JOBS": "32",
}


@contextmanager
def running_cluster(root: Path, database: str) -> Iterator[Cluster]:
    """Two replicas and two workers over one catalog, stopped afterwards."""
    cluster = Cluster(root=root, database=database, env=ENV).start()
    try:
        yield cluster
    finally:
        cluster.stop()


def make_keys(cluster: Cluster) -> dict[str, str]:
    """One key per role, made in the shared catalog (as ``overstory keys create`` would)."""
    catalog = open_catalog(Settings(store=cluster.root / "keys", database_url=cluster.database_url))
    store = KeyStore(catalog)
    keys = {role: store.create(role=role, name=f"test-{role}")[0] for role in ("editor", "admin")}
    catalog.close()
    return keys


def auth(key: str) -> dict[str, str]:
    """The Authorization header of a key."""
    return {"Authorization": f"Bearer {key}"}


def upload(url: str, key: str, name: str, data: bytes) -> str:
    """POST a document to one replica; its job id."""
    r = httpx.post(f"{url}/v1/documents", headers=auth(key), files={"file": (name, data)})
    assert r.status_code == 202, r.text
    return str(r.json()["job_id"])


def job(url: str, key: str, job_id: str) -> dict[str, Any]:
    """A job as one replica shows it."""
    r = httpx.get(f"{url}/v1/jobs/{job_id}", headers=auth(key), timeout=30)
    assert r.status_code == 200, r.text
    return dict(r.json())


def wait_done(url: str, key: str, job_id: str, *, timeout: float = 300) -> dict[str, Any]:
    """Poll until the job is done or failed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        j = job(url, key, job_id)
        if j["status"] in ("done", "failed"):
            return j
        time.sleep(0.2)
    raise TimeoutError(f"job {job_id} still {j['status']}: {j}")


def manual(name: str, version: str, sections: int = 3) -> bytes:
    """A small Markdown manual, its text different per version."""
    parts = [f"# {name} {version}\n"]
    for s in range(sections):
        parts.append(
            f"\n## Part {s}\n\nRevision {version} of {name}: check the valve {s} of the "
            f"{name} pump, then tighten bolt {s} to {10 + s} Nm.\n"
        )
    return "".join(parts).encode()
