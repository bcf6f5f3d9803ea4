"""Two API replicas and two workers over one catalog, on loopback, every process real.

The layout of ``make cluster`` (``scripts/cluster.py``): ``chroma run``, the catalog, two
``overstory serve`` that only enqueue, two ``overstory worker``. In ``make test`` the catalog is
one SQLite file that every process shares; ``make test-cluster`` runs the same tests on
PostgreSQL started from the Debian package (``OVERSTORY_CLUSTER_DATABASE=postgres``).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from indexer.index import open_catalog
from indexer.settings import Settings
from scripts.cluster import Cluster, pg_bin
from tests.cluster_support import auth, job, make_keys, manual, running_cluster, upload, wait_done
from tests.http_support import big_manual

DATABASE = os.environ.get("OVERSTORY_CLUSTER_DATABASE", "sqlite")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    if DATABASE == "postgres" and pg_bin() is None:
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql-15)")
    with running_cluster(tmp_path_factory.mktemp("cluster"), DATABASE) as c:
        yield c


@pytest.fixture(scope="module")
def keys(cluster: Cluster) -> dict[str, str]:
    return make_keys(cluster)


def _summaries(cluster: Cluster) -> int:
    catalog = open_catalog(Settings(store=cluster.root / "keys", database_url=cluster.database_url))
    try:
        return catalog.summary_count()
    finally:
        catalog.close()


def test_twenty_uploads_over_both_replicas_are_each_ingested_once(
    cluster: Cluster, keys: dict[str, str]
) -> None:
    a, b = cluster.replica_urls()
    editor = keys["editor"]
    ids = {
        f"m{i}.md": upload((a, b)[i % 2], editor, f"m{i}.md", manual(f"m{i}", "v1"))
        for i in range(20)
    }
    done = {doc: wait_done((b, a)[i % 2], editor, j) for i, (doc, j) in enumerate(ids.items())}
    failed = {doc: (j["status"], j["error"]) for doc, j in done.items() if j["status"] != "done"}
    assert not failed, failed
    # A run may be repeated after a transient backend error (Chroma's first writes into a new
    # collection from two processes can fail once); what counts is that each document was
    # published once: one revision, reported new.
    assert all(1 <= j["attempts"] <= 3 for j in done.values())
    assert {j["worker"] for j in done.values()} <= {"worker-0", "worker-1"}
    assert all(j["report"]["documents"][0]["status"] == "new" for j in done.values())
    for url in (a, b):
        for doc in ids:
            r = httpx.get(f"{url}/v1/documents/{doc}/revisions", headers=auth(editor))
            assert r.status_code == 200, r.text
            assert len(r.json()["revisions"]) == 1, r.json()
        listed = httpx.get(f"{url}/v1/documents", headers=auth(editor)).json()["documents"]
        assert {d["doc_id"] for d in listed} >= set(ids)


def test_a_job_whose_worker_is_killed_completes_on_the_other_reusing_its_summaries(
    cluster: Cluster, keys: dict[str, str]
) -> None:
    a, b = cluster.replica_urls()
    editor = keys["editor"]
    before = _summaries(cluster)
    job_id = upload(a, editor, "big.md", big_manual(300, seed="cluster"))
    deadline = time.monotonic() + 300
    while _summaries(cluster) < before + 64:  # a batch of summaries is committed
        assert time.monotonic() < deadline, "the job never got to summarizing"
        assert job(b, editor, job_id)["status"] in ("queued", "running")
        time.sleep(0.05)
    victim = job(b, editor, job_id)["worker"]
    cluster.process(victim).kill9()
    precomputed = _summaries(cluster) - before
    try:
        finished = wait_done(b, editor, job_id)
    finally:
        cluster.restart_worker(victim)
    assert finished["status"] == "done", finished
    assert finished["attempts"] == 2
    assert finished["worker"] != victim and finished["worker"].startswith("worker-")
    (doc,) = finished["report"]["documents"]
    assert finished["report"]["cache_hits"] == precomputed > 0
    assert finished["report"]["summarizer_calls"] + precomputed == doc["summaries"]


class _Watcher:
    """Queries both replicas in a loop; records every revision of one document they answer."""

    def __init__(self, urls: list[str], key: str, doc: str) -> None:
        self.urls, self.key, self.doc = urls, key, doc
        self.seen: list[tuple[float, str, frozenset[str]]] = []
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(u,)) for u in urls]

    def _run(self, url: str) -> None:
        body = {"query": "valve pump bolt", "k": 10, "documents": [self.doc]}
        with httpx.Client(timeout=30) as client:
            while not self._stop.is_set():
                r = client.post(f"{url}/v1/query", headers=auth(self.key), json=body)
                if r.status_code != 200:
                    self.errors.append(f"{r.status_code} {r.text[:200]}")
                    continue
                revisions = frozenset(x["revision"] for x in r.json()["results"])
                self.seen.append((time.monotonic(), url, revisions))

    def first_seen(self, url: str, revision: str, since: float) -> float | None:
        for at, u, revisions in self.seen:
            if u == url and at >= since and revisions == {revision}:
                return at
        return None

    def __enter__(self) -> _Watcher:
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(30)


def test_both_replicas_serve_each_new_revision_within_5_s_and_never_a_mix(
    cluster: Cluster, keys: dict[str, str]
) -> None:
    urls = cluster.replica_urls()
    editor = keys["editor"]
    first = wait_done(urls[0], editor, upload(urls[0], editor, "live.md", manual("live", "v0")))
    revisions = [first["report"]["documents"][0]["revision"]]
    body = {"query": "valve pump bolt", "k": 10, "documents": ["live.md"]}
    for url in urls:  # a replica knows the new document once it has followed the publish
        deadline = time.monotonic() + 5.0
        while True:
            r = httpx.post(f"{url}/v1/query", headers=auth(editor), json=body)
            if r.status_code == 200 and r.json()["results"]:
                break
            assert time.monotonic() < deadline, r.text
            time.sleep(0.05)
    lags: list[float] = []
    with _Watcher(urls, editor, "live.md") as watcher:
        for n in range(1, 4):
            job_id = upload(urls[n % 2], editor, "live.md", manual("live", f"v{n}", 3 + n))
            done = wait_done(urls[(n + 1) % 2], editor, job_id, timeout=120)
            published = time.monotonic()
            revision = done["report"]["documents"][0]["revision"]
            revisions.append(revision)
            for url in urls:
                deadline = published + 5.0
                while (at := watcher.first_seen(url, revision, published - 5.0)) is None:
                    assert time.monotonic() < deadline + 1.0, f"{url} still serves the old one"
                    time.sleep(0.05)
                lags.append(at - published)
    assert not watcher.errors, watcher.errors[:3]
    assert max(lags) <= 5.0, lags
    assert len(watcher.seen) > 20
    mixed = [s for s in watcher.seen if len(s[2]) > 1]
    assert not mixed, mixed[:3]
    assert {r for s in watcher.seen for r in s[2]} <= set(revisions)


def test_a_key_revoked_on_one_replica_is_refused_by_the_other_at_once(
    cluster: Cluster, keys: dict[str, str]
) -> None:
    a, b = cluster.replica_urls()
    admin = auth(keys["admin"])
    made = httpx.post(f"{a}/v1/keys", headers=admin, json={"role": "reader", "name": "temp"})
    assert made.status_code == 201, made.text
    reader: dict[str, Any] = made.json()
    for url in (a, b):
        assert httpx.get(f"{url}/v1/documents", headers=auth(reader["key"])).status_code == 200
    revoked = httpx.delete(f"{a}/v1/keys/{reader['key_id']}", headers=admin)
    assert revoked.status_code == 200, revoked.text
    r = httpx.get(f"{b}/v1/documents", headers=auth(reader["key"]))
    assert r.status_code == 401, r.text
    assert httpx.get(f"{a}/v1/documents", headers=auth(reader["key"])).status_code == 401


def test_a_worker_stopped_by_sigterm_finishes_or_gives_back_its_job(
    cluster: Cluster, keys: dict[str, str]
) -> None:
    a, b = cluster.replica_urls()
    editor = keys["editor"]
    job_id = upload(a, editor, "stopped.md", big_manual(120, seed="sigterm"))
    deadline = time.monotonic() + 120
    while (running := job(b, editor, job_id))["status"] != "running":
        assert running["status"] == "queued" and time.monotonic() < deadline, running
        time.sleep(0.05)
    name = running["worker"]
    proc = cluster.process(name)
    proc.terminate(timeout=120)
    assert proc.popen is not None and proc.popen.returncode == 0, Path(proc.log).read_text()[-2000:]
    try:
        finished = wait_done(b, editor, job_id)
    finally:
        cluster.restart_worker(name)
    assert finished["status"] == "done", finished
    # Finished by the stopping worker, or given back and run once more by the other: a
    # graceful stop never counts as a lost run.
    assert finished["attempts"] == 1 or finished["worker"] != name, finished
    log = Path(proc.log).read_text()
    assert "stopped" in log
