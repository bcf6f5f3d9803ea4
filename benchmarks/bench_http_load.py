"""HTTP load: 16 query clients for 60 s while an editor keeps re-uploading a changed manual.

A real ``overstory serve`` subprocess on a free 127.0.0.1 port (loopback only) with the default
(real) embedding model, its store filled from ``fixtures/`` by ``--index-fixtures``. During the
run: every query must succeed; every result must come from a complete revision (checked against
the builds SQLite recorded as complete) and one response never mixes two revisions of a
document; ``GET /v1/check`` (Index.check at a quiescent point) must find the store consistent
every time it runs. Reports p50/p90/p99 latency and throughput.

Environment: ``OVERSTORY_BENCH_SECONDS`` (default 60), ``OVERSTORY_BENCH_CLIENTS`` (16),
``OVERSTORY_EMBEDDER`` (default: the real model).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
MANUAL = "pump-x200.md"
BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _questions() -> list[str]:
    lines = (FIXTURES / "questions.jsonl").read_text().splitlines()
    out = [json.loads(line)["question"] for line in lines if line.strip()]
    return out or ["How do I replace the mechanical seal?"]


def _revisions_of(text: str) -> list[bytes]:
    """Changed versions of the manual, each editing a different sentence."""
    sentences = [s for s in text.split(". ") if 40 < len(s) < 400]
    rng = random.Random(7)
    picks = rng.sample(sentences, min(40, len(sentences)))
    return [
        text.replace(s, f"{s} (revised, edition {i + 2})", 1).encode() for i, s in enumerate(picks)
    ]


class Run:
    """Shared state of one load run."""

    def __init__(self, url: str, reader: str, editor: str, admin: str, deadline: float) -> None:
        self.url = url
        self.reader = {"Authorization": f"Bearer {reader}"}
        self.editor = {"Authorization": f"Bearer {editor}"}
        self.admin = {"Authorization": f"Bearer {admin}"}
        self.deadline = deadline
        self.lock = threading.Lock()
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.seen: set[tuple[str, str]] = set()
        self.mixed = 0
        self.jobs: list[dict[str, Any]] = []
        self.checks: list[dict[str, Any]] = []

    def query_client(self, seed: int) -> None:
        rng = random.Random(seed)
        questions = _questions()
        with httpx.Client(base_url=self.url, timeout=60) as client:
            while time.monotonic() < self.deadline:
                q = rng.choice(questions)
                started = time.perf_counter()
                try:
                    r = client.post("/v1/query", headers=self.reader, json={"query": q, "k": 5})
                except httpx.HTTPError as exc:
                    with self.lock:
                        self.errors.append(f"query: {exc!r}")
                    continue
                elapsed = time.perf_counter() - started
                if r.status_code != 200:
                    with self.lock:
                        self.errors.append(f"query: {r.status_code} {r.text[:200]}")
                    continue
                results = r.json()["results"]
                pairs = {(res["doc_id"], res["revision"]) for res in results}
                per_doc: dict[str, set[str]] = {}
                for doc_id, revision in pairs:
                    per_doc.setdefault(doc_id, set()).add(revision)
                with self.lock:
                    self.latencies.append(elapsed)
                    self.seen |= pairs
                    self.mixed += sum(1 for revs in per_doc.values() if len(revs) > 1)

    def editor_client(self) -> None:
        versions = _revisions_of((FIXTURES / MANUAL).read_text())
        with httpx.Client(base_url=self.url, timeout=120) as client:
            for data in versions:
                if time.monotonic() >= self.deadline:
                    return
                started = time.perf_counter()
                r = client.post(
                    "/v1/documents", headers=self.editor, files={"file": (MANUAL, data)}
                )
                if r.status_code != 202:
                    with self.lock:
                        self.errors.append(f"upload: {r.status_code} {r.text[:200]}")
                    return
                job_id = r.json()["job_id"]
                while True:
                    job = client.get(f"/v1/jobs/{job_id}", headers=self.editor).json()
                    if job["status"] in ("done", "failed"):
                        break
                    time.sleep(0.2)
                with self.lock:
                    self.jobs.append(
                        {
                            "status": job["status"],
                            "seconds": round(time.perf_counter() - started, 2),
                            "summarizer_calls": (job["report"] or {}).get("summarizer_calls"),
                            "cache_hits": (job["report"] or {}).get("cache_hits"),
                        }
                    )
                    if job["status"] != "done":
                        self.errors.append(f"job {job_id}: {job['error']}")

    def checker(self) -> None:
        with httpx.Client(base_url=self.url, timeout=300) as client:
            while time.monotonic() < self.deadline:
                r = client.get("/v1/check", headers=self.admin)
                with self.lock:
                    if r.status_code != 200:
                        self.errors.append(f"check: {r.status_code} {r.text[:200]}")
                    else:
                        self.checks.append(r.json())
                time.sleep(5)


def _complete_builds(db_path: Path) -> set[tuple[str, str]]:
    from indexer.store.catalog import Catalog

    catalog = Catalog(db_path)
    try:
        return catalog.completed_revisions()
    finally:
        catalog.close()


def main() -> dict[str, Any]:
    """Run the load test and return its figures."""
    from api.service.keys import KeyStore
    from indexer.index import Index
    from indexer.settings import Settings
    from indexer.store.catalog import Catalog

    seconds = float(os.environ.get("OVERSTORY_BENCH_SECONDS", "60"))
    clients = int(os.environ.get("OVERSTORY_BENCH_CLIENTS", "16"))
    workdir = Path(tempfile.mkdtemp(prefix="overstory-bench-http-"))
    store = workdir / "store"
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    catalog = Catalog(store / "overstory.db")
    keys = KeyStore(catalog)
    reader, _ = keys.create(role="reader", name="bench-reader")
    editor, _ = keys.create(role="editor", name="bench-editor")
    admin, _ = keys.create(role="admin", name="bench-admin")
    catalog.close()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env["ANONYMIZED_TELEMETRY"] = "False"
    log = workdir / "server.log"
    cmd = [
        str(BIN / "overstory"), "serve", "--host", "127.0.0.1", "--port", str(port),
        "--store", str(store), "--index-fixtures", str(FIXTURES), "--no-access-log",
    ]  # fmt: skip
    setup_started = time.perf_counter()
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        _wait_healthy(url, proc, timeout=1200)
        setup = time.perf_counter() - setup_started
        with httpx.Client(base_url=url, timeout=300) as client:
            # Warm the query path (model load) before timing.
            client.post("/v1/query", headers={"Authorization": f"Bearer {reader}"},
                        json={"query": "warm up", "k": 5}).raise_for_status()  # fmt: skip
        run = Run(url, reader, editor, admin, deadline=time.monotonic() + seconds)
        threads = [threading.Thread(target=run.query_client, args=(i,)) for i in range(clients)]
        threads += [
            threading.Thread(target=run.editor_client),
            threading.Thread(target=run.checker),
        ]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join(seconds + 600)
        wall = time.perf_counter() - started
        with httpx.Client(base_url=url, timeout=300) as client:
            final_http_check = client.get("/v1/check", headers=run.admin).json()
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(30)
    complete = _complete_builds(store / "overstory.db")
    incomplete = sorted(run.seen - complete)
    final = Index(Settings(store=store)).check()
    lat_ms = [x * 1000 for x in run.latencies]
    result = {
        "clients": clients,
        "seconds": seconds,
        "wall_seconds": round(wall, 1),
        "setup_seconds": round(setup, 1),
        "queries": len(lat_ms),
        "queries_per_second": round(len(lat_ms) / wall, 1),
        "errors": len(run.errors),
        "error_samples": run.errors[:5],
        "latency_ms": {
            "p50": round(_percentile(lat_ms, 0.50), 1),
            "p90": round(_percentile(lat_ms, 0.90), 1),
            "p99": round(_percentile(lat_ms, 0.99), 1),
            "max": round(max(lat_ms), 1) if lat_ms else None,
        },
        "reuploads": len(run.jobs),
        "reupload_jobs": run.jobs,
        "revisions_of_manual_seen": len({r for d, r in run.seen if d == MANUAL}),
        "results_from_incomplete_revision": len(incomplete),
        "responses_mixing_revisions": run.mixed,
        "checks_during_run": len(run.checks),
        "inconsistent_checks": sum(1 for c in run.checks if not c["consistent"]),
        "final_check_consistent": bool(final["consistent"] and final_http_check["consistent"]),
        "embedder": os.environ.get("OVERSTORY_EMBEDDER", "minilm"),
        "cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    result["ok"] = (
        result["errors"] == 0
        and result["results_from_incomplete_revision"] == 0
        and result["responses_mixing_revisions"] == 0
        and result["inconsistent_checks"] == 0
        and result["final_check_consistent"]
        and result["reuploads"] > 0
    )
    if result["ok"]:
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        result["workdir"] = str(workdir)  # kept: the store and server.log
    return result


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], *, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"overstory serve exited with {proc.returncode}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise TimeoutError("overstory serve did not become healthy")


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
