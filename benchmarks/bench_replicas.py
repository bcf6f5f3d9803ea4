"""Load over the cluster: 16 query clients x 60 s over both API replicas during re-uploads.

The layout of ``make cluster`` (``scripts/cluster.py``: the catalog, ``chroma run``, two
replicas that only enqueue, two workers), the default (real) embedding model, the fixture
manuals uploaded first. Two phases of the same length and load, in one run:

- ``one_replica`` (the baseline): every client queries replica 0;
- ``two_replicas``: clients alternate between the replicas.

During both an editor keeps re-uploading a changed manual (through both replicas in turn).
Every query must succeed and no response may mix two revisions of a document; after each
re-upload, the seconds until both replicas answer the new revision are measured. Figures: p50
and p99 per replica, throughput, and the two-replica figures as ratios against the baseline.

Environment: ``OVERSTORY_BENCH_SECONDS`` (60), ``OVERSTORY_BENCH_CLIENTS`` (16),
``OVERSTORY_CLUSTER_DATABASE`` (``postgres`` when installed, else ``sqlite``),
``OVERSTORY_EMBEDDER`` (default: the real model).
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks.bench_http_load import FIXTURES, MANUAL, _percentile, _questions, _revisions_of
from scripts.cluster import Cluster, pg_bin


class Phase:
    """One load phase: who queries which replica, what came back."""

    def __init__(self, urls: list[str], targets: list[str], keys: dict[str, str], seconds: float):
        self.urls, self.targets, self.seconds = urls, targets, seconds
        self.reader = {"Authorization": f"Bearer {keys['reader']}"}
        self.editor = {"Authorization": f"Bearer {keys['editor']}"}
        self.deadline = 0.0
        self.lock = threading.Lock()
        self.latencies: dict[str, list[float]] = {u: [] for u in urls}
        self.errors: list[str] = []
        self.mixed = 0
        self.jobs: list[dict[str, Any]] = []
        self.versions = _revisions_of((FIXTURES / MANUAL).read_text())

    def query_client(self, seed: int) -> None:
        rng = random.Random(seed)
        url = self.targets[seed % len(self.targets)]
        questions = _questions()
        with httpx.Client(base_url=url, timeout=60) as client:
            while time.monotonic() < self.deadline:
                started = time.perf_counter()
                try:
                    r = client.post(
                        "/v1/query", headers=self.reader, json={"query": rng.choice(questions)}
                    )
                except httpx.HTTPError as exc:
                    with self.lock:
                        self.errors.append(f"{url} query: {exc!r}")
                    continue
                elapsed = time.perf_counter() - started
                if r.status_code != 200:
                    with self.lock:
                        self.errors.append(f"{url} query: {r.status_code} {r.text[:200]}")
                    continue
                per_doc: dict[str, set[str]] = {}
                for res in r.json()["results"]:
                    per_doc.setdefault(res["doc_id"], set()).add(res["revision"])
                with self.lock:
                    self.latencies[url].append(elapsed)
                    self.mixed += sum(1 for revs in per_doc.values() if len(revs) > 1)

    def editor_client(self, offset: int) -> None:
        for n, data in enumerate(self.versions[offset:], start=offset):
            if time.monotonic() >= self.deadline:
                return
            url = self.urls[n % len(self.urls)]
            with httpx.Client(base_url=url, timeout=120) as client:
                started = time.perf_counter()
                r = client.post(
                    "/v1/documents", headers=self.editor, files={"file": (MANUAL, data)}
                )
                if r.status_code != 202:
                    with self.lock:
                        self.errors.append(f"upload: {r.status_code} {r.text[:200]}")
                    return
                job = _wait_job(client, self.editor, r.json()["job_id"])
            lags = self._visible(job) if job["status"] == "done" else {}
            with self.lock:
                self.jobs.append(
                    {"status": job["status"], "worker": job["worker"],
                     "seconds": round(time.perf_counter() - started, 2), "visible_after_s": lags}
                )  # fmt: skip
                if job["status"] != "done":
                    self.errors.append(f"job: {job['error']}")

    def _visible(self, job: dict[str, Any]) -> dict[str, float]:
        """Seconds from the job's end until each replica's queries answer the new revision."""
        revision = job["report"]["documents"][0]["revision"]
        done_at = time.monotonic()
        body = {"query": "pump seal", "documents": [MANUAL]}
        lags: dict[str, float] = {}
        for i, url in enumerate(self.urls):
            while time.monotonic() - done_at < 30:
                r = httpx.post(f"{url}/v1/query", headers=self.reader, json=body, timeout=60)
                if r.status_code == 200 and {x["revision"] for x in r.json()["results"]} == {
                    revision
                }:
                    break
                time.sleep(0.05)
            lags[f"replica-{i}"] = round(time.monotonic() - done_at, 2)
        return lags

    def run(self, clients: int, offset: int) -> dict[str, Any]:
        self.deadline = time.monotonic() + self.seconds
        threads = [threading.Thread(target=self.query_client, args=(i,)) for i in range(clients)]
        threads.append(threading.Thread(target=self.editor_client, args=(offset,)))
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join(self.seconds + 600)
        wall = time.perf_counter() - started
        per_replica = {}
        for i, url in enumerate(self.urls):
            ms = [x * 1000 for x in self.latencies[url]]
            if not ms:
                continue
            per_replica[f"replica-{i}"] = {
                "queries": len(ms),
                "queries_per_second": round(len(ms) / wall, 1),
                "p50_ms": round(_percentile(ms, 0.50), 1),
                "p99_ms": round(_percentile(ms, 0.99), 1),
            }
        total = sum(len(v) for v in self.latencies.values())
        return {
            "wall_seconds": round(wall, 1),
            "queries": total,
            "queries_per_second": round(total / wall, 1),
            "per_replica": per_replica,
            "errors": len(self.errors),
            "error_samples": self.errors[:5],
            "responses_mixing_revisions": self.mixed,
            "reuploads": len(self.jobs),
            "reupload_workers": sorted({j["worker"] for j in self.jobs if j["worker"]}),
            "new_revision_visible_max_s": max(
                (lag for j in self.jobs for lag in j["visible_after_s"].values()), default=None
            ),
        }


def _wait_job(client: httpx.Client, headers: dict[str, str], job_id: str) -> dict[str, Any]:
    while True:
        job: dict[str, Any] = client.get(f"/v1/jobs/{job_id}", headers=headers).json()
        if job["status"] in ("done", "failed"):
            return job
        time.sleep(0.2)


def _keys(cluster: Cluster) -> dict[str, str]:
    from api.service.keys import KeyStore
    from indexer.index import open_catalog
    from indexer.settings import Settings

    settings = Settings(store=cluster.root / "keys", database_url=cluster.database_url)
    catalog = open_catalog(settings)
    store = KeyStore(catalog)
    keys = {r: store.create(role=r, name=f"bench-{r}")[0] for r in ("reader", "editor")}
    catalog.close()
    return keys


def _seed(cluster: Cluster, keys: dict[str, str]) -> None:
    """Upload the fixture manuals and warm both replicas' query path (model load)."""
    urls = cluster.replica_urls()
    editor = {"Authorization": f"Bearer {keys['editor']}"}
    with httpx.Client(base_url=urls[0], timeout=600) as client:
        ids = []
        for path in sorted(FIXTURES.iterdir()):
            if path.suffix in (".md", ".html", ".txt", ".pdf"):
                files = {"file": (path.name, path.read_bytes())}
                r = client.post("/v1/documents", headers=editor, files=files)
                r.raise_for_status()
                ids.append(r.json()["job_id"])
        for job_id in ids:
            job = _wait_job(client, editor, job_id)
            assert job["status"] == "done", job
    time.sleep(2.0)  # both replicas follow the publishes
    for url in urls:
        r = httpx.post(f"{url}/v1/query", headers={"Authorization": f"Bearer {keys['reader']}"},
                       json={"query": "warm up"}, timeout=600)  # fmt: skip
        r.raise_for_status()


def main() -> dict[str, Any]:
    """Run both phases and return their figures."""
    seconds = float(os.environ.get("OVERSTORY_BENCH_SECONDS", "60"))
    clients = int(os.environ.get("OVERSTORY_BENCH_CLIENTS", "16"))
    database = os.environ.get("OVERSTORY_CLUSTER_DATABASE") or (
        "postgres" if pg_bin() is not None else "sqlite"
    )
    root = Path(tempfile.mkdtemp(prefix="overstory-bench-cluster-"))
    setup_started = time.perf_counter()
    cluster = Cluster(root=root, database=database).start()
    try:
        keys = _keys(cluster)
        _seed(cluster, keys)
        setup = time.perf_counter() - setup_started
        urls = cluster.replica_urls()
        one = Phase(urls, urls[:1], keys, seconds).run(clients, offset=0)
        two = Phase(urls, urls, keys, seconds).run(clients, offset=20)
    finally:
        cluster.stop()
    base = one["per_replica"]["replica-0"]
    result: dict[str, Any] = {
        "clients": clients,
        "seconds": seconds,
        "database": database,
        "embedder": os.environ.get("OVERSTORY_EMBEDDER", "minilm"),
        "setup_seconds": round(setup, 1),
        "one_replica": one,
        "two_replicas": two,
        "ratios_vs_one_replica": {
            "throughput": round(two["queries_per_second"] / one["queries_per_second"], 2),
            **{
                f"{name}_{q}": round(figures[f"{q}_ms"] / base[f"{q}_ms"], 2)
                for name, figures in two["per_replica"].items()
                for q in ("p50", "p99")
            },
        },
        "cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    result["ok"] = all(
        p["errors"] == 0
        and p["responses_mixing_revisions"] == 0
        and p["reuploads"] > 0
        and (p["new_revision_visible_max_s"] or 0) <= 5.0
        for p in (one, two)
    )
    shutil.rmtree(root, ignore_errors=True)
    return result


if __name__ == "__main__":
    import json

    print(json.dumps(main(), indent=2))
