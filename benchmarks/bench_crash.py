"""``kill -9`` of an ingest at random instants, CLI and server alike, then what a user sees.

Each round writes a new revision of a 120-section manual (every passage changed, so the ingest
spends most of its time encoding and writing vectors, then summarizing), starts its ingest —
``overstory ingest`` (odd rounds) or an upload to ``overstory serve`` (even rounds) — and kills the
process at a uniformly random instant within the time a full ingest takes. Then a new process
opens the store as the service would and checks: it opens (the vector store rebuilt from SQLite
if the kill damaged it), a query answers from the previous complete revision, and ``doctor`` is
clean, having at most swept leftovers and put back vectors from SQLite (never encoding what
SQLite holds). At the end, an ingest of the last revision runs to completion.

Counted: stores that could not be opened or queried or stayed inconsistent (``corrupt``: the
target is 0), rebuilds, sweeps and restores. ``python -m benchmarks.run crash``
(``OVERSTORY_BENCH_KILLS`` sets the number of kills, default 50).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks.bench_http_load import _free_port
from benchmarks.common import ROOT

BIN = Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv")) / "bin"
DOC = "manual.md"
SECTIONS = 120

_VERIFY = """
import json, sys
from pathlib import Path
from indexer.index import Index
from indexer.settings import Settings
from retriever.retriever import Retriever
index = Index(Settings(store=Path(sys.argv[1])))
retriever = Retriever(index)
out = retriever.query(retriever.request("tighten the bolt of procedure 3.2", k=5)).to_json()
check = index.check()
served = index.catalog.document(sys.argv[2])
complete = index.catalog.completed_revisions()
print(json.dumps({
    "results": len(out["results"]),
    "served_complete": served is None or (sys.argv[2], served["revision"]) in complete,
    "revisions": sorted({r["revision"] for r in out["results"]}),
    "served": served["revision"] if served else None,
    "consistent": check["consistent"], "swept": check["swept"], "restored": check["restored"],
    "rebuilt": check["rebuilt_from"] is not None, "missing": check["n_missing"],
}))
"""


def manual(seed: int) -> bytes:
    """A long Markdown manual whose every sentence depends on ``seed``."""
    rng = random.Random(seed)
    words = ["bolt", "seal", "pump", "valve", "torque", "gasket", "filter", "motor", "shaft"]
    parts = [f"# Field Manual revision {seed}\n"]
    for c in range(1, SECTIONS // 10 + 1):
        parts.append(f"\n## {c} Chapter {c}\n")
        for s in range(1, 11):
            parts.append(f"\n### {c}.{s} Procedure {c}.{s}\n")
            for p in range(3):
                body = " ".join(rng.choice(words) for _ in range(40))
                parts.append(
                    f"\nStep {p + 1} (rev {seed}): tighten the {rng.choice(words)} to "
                    f"{rng.randint(5, 90)} Nm. {body.capitalize()}.\n"
                )
    return "".join(parts).encode()


def _env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "OVERSTORY_AUTH": "off"}


def _cli(store: Path, source: Path) -> subprocess.Popen[bytes]:
    # run in the source's folder so that its doc_id is the same as the upload's
    cmd = [str(BIN / "overstory"), "ingest", source.name, "--store", str(store), "--json"]
    return subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env(), cwd=source.parent
    )


def _server(store: Path, source: Path) -> subprocess.Popen[bytes]:
    port = _free_port()
    cmd = [str(BIN / "overstory"), "serve", "--host", "127.0.0.1", "--port", str(port),
           "--store", str(store), "--no-access-log"]  # fmt: skip
    log = source.parent / "server.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=_env())
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            files = {"file": (DOC, source.read_bytes())}
            if httpx.post(f"{url}/v1/documents", files=files, timeout=30).status_code == 202:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    tail = log.read_text(errors="replace")[-2000:]
    raise RuntimeError(f"overstory serve did not take the upload:\n{tail}")


def _verify(store: Path) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-c", _VERIFY, str(store), DOC],
        capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=600,
    )  # fmt: skip
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1:] or ["exit " + str(proc.returncode)]}
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def _full_ingest(
    store: Path, source: Path, *, dry_run: bool = False
) -> tuple[dict[str, Any], float]:
    started = time.perf_counter()
    dry = ["--dry-run"] if dry_run else []
    proc = subprocess.run(
        [str(BIN / "overstory"), "ingest", source.name, "--store", str(store), "--json", *dry],
        capture_output=True, text=True, env=_env(), timeout=1200, cwd=source.parent,
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"ingest failed: {proc.stderr[-2000:]}")
    report: dict[str, Any] = json.loads(proc.stdout)
    return report, time.perf_counter() - started


def main() -> dict[str, Any]:
    """Kill, check, repeat; then one ingest to completion."""
    kills = int(os.environ.get("OVERSTORY_BENCH_KILLS", "50"))
    rng = random.Random(12)
    workdir = Path(tempfile.mkdtemp(prefix="overstory-bench-crash-"))
    store, source = workdir / "store", workdir / DOC
    try:
        source.write_bytes(manual(0))
        _, full_seconds = _full_ingest(store, source)
        rounds: list[dict[str, Any]] = []
        i = 0
        while sum(not r["finished"] for r in rounds) < kills and i < 3 * kills:
            i += 1
            mode = "cli" if i % 2 else "server"
            source.write_bytes(manual(i))
            started = time.perf_counter()
            proc = (_cli if mode == "cli" else _server)(store, source)
            delay = rng.uniform(0.2, 0.95 * full_seconds)
            while time.perf_counter() - started < delay and proc.poll() is None:
                time.sleep(0.02)
            finished = proc.poll() is not None
            if not finished:
                proc.send_signal(signal.SIGKILL)
            proc.wait(60)
            check = _verify(store)
            corrupt = (
                "error" in check
                or not check.get("consistent")
                or not check.get("served_complete")
                or check.get("results", 0) == 0
                or check.get("revisions", []) != [check.get("served")]
            )
            rounds.append({"mode": mode, "at_seconds": round(delay, 2), "finished": finished,
                           "corrupt": corrupt, **check})  # fmt: skip
        plan, _ = _full_ingest(store, source, dry_run=True)  # what the cache holds already
        report, seconds = _full_ingest(store, source)
        final = _verify(store)
        return {
            "kills": sum(not r["finished"] for r in rounds),
            "rounds": len(rounds),
            "full_ingest_seconds": round(full_seconds, 1),
            "corrupt": sum(r["corrupt"] for r in rounds),
            "rebuilt": sum(bool(r.get("rebuilt")) for r in rounds),
            "swept_rounds": sum(r.get("swept", 0) > 0 for r in rounds),
            "restored_rounds": sum(r.get("restored", 0) > 0 for r in rounds),
            "final_ingest": {
                "ok": not report.get("errors"),
                "seconds": round(seconds, 1),
                "summarizer_calls": report.get("summarizer_calls"),
                "cache_hits": report.get("cache_hits"),
                # every summary the killed ingests had committed is reused, none computed twice
                "summaries_cached_before": plan["summaries_reused"],
                "reused_every_cached_summary": report.get("cache_hits") == plan["summaries_reused"]
                and report.get("summarizer_calls") == plan["summaries_computed"],
                "consistent": final.get("consistent"),
            },
            "target_corrupt": 0,
            "detail": rounds,
        }
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
