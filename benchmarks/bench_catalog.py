"""The catalog on PostgreSQL beside SQLite: ingest and query, as ratios in the same run.

Both stores take the same work in the same process: the fixture manuals ingested (the hashing
embedder and the extractive summarizer, so that the catalog's share of the time is not hidden
behind the model), re-ingested after a one-passage edit (every other summary a cache hit), then
every fixture question answered ``ROUNDS`` times through the retriever, the two stores taking
turns question by question (the machine's noise falls on both alike). Start-up costs (imports,
the schema, Chroma) are paid on a warm-up store of each backend before the clock starts.
PostgreSQL is a temporary local cluster (Debian's PostgreSQL 15 run as the ``postgres`` user,
durability off as in the tests): the figures are the cost of the engine and the driver, without
a network between machines.

- ``ingest_ratio`` / ``edit_ratio``: PostgreSQL wall time over SQLite's.
- ``query_p50_ratio`` / ``query_p99_ratio``: per-query latency percentiles, PostgreSQL over
  SQLite.
"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import FIXTURES, timed

ROUNDS = 5
NEEDLE = "Report any damage to the carrier in writing within 48 hours."


def main() -> dict[str, Any]:
    from tests.pg_support import PostgresServer

    work = Path(tempfile.mkdtemp(prefix="ovs-bench-catalog-"))
    server = PostgresServer().start()
    try:
        questions = [
            json.loads(line)["question"]
            for line in (FIXTURES / "questions.jsonl").read_text().splitlines()
            if line.strip()
        ]
        pg = (server.create_database(), server.create_database())
        urls = {"sqlite": ("", ""), "postgres": pg}
        stores = {name: _Store(work / name, *urls[name]) for name in urls}
        for store in stores.values():
            store.ingest()
        latencies = _query(stores, questions)
        for store in stores.values():
            store.index.close()
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    out: dict[str, Any] = {
        "what": "ingest and query of the fixture manuals, catalog on PostgreSQL vs SQLite",
        "questions": len(questions),
        "rounds": ROUNDS,
    }
    for name, store in stores.items():
        ms = sorted(latencies[name])
        out[name] = {
            "ingest_s": round(store.ingest_s, 3),
            "edit_s": round(store.edit_s, 3),
            "query_p50_ms": round(statistics.median(ms), 2),
            "query_p99_ms": round(ms[int(0.99 * (len(ms) - 1))], 2),
        }
    pg, lite = out["postgres"], out["sqlite"]
    out["ingest_ratio"] = round(pg["ingest_s"] / lite["ingest_s"], 2)
    out["edit_ratio"] = round(pg["edit_s"] / lite["edit_s"], 2)
    out["query_p50_ratio"] = round(pg["query_p50_ms"] / lite["query_p50_ms"], 2)
    out["query_p99_ratio"] = round(pg["query_p99_ms"] / lite["query_p99_ms"], 2)
    return out


class _Store:
    """One store of the benchmark and its timings."""

    def __init__(self, folder: Path, database_url: str, warm_url: str) -> None:
        from indexer.index import Index
        from indexer.settings import Settings

        self.manuals = folder / "manuals"
        shutil.copytree(
            FIXTURES, self.manuals, ignore=shutil.ignore_patterns("*.jsonl", "README.md")
        )
        warm = folder / "warm"
        warm.mkdir()
        (warm / "warm.md").write_text("# Warm\n\n## 1 Up\n\n" + "A sentence to warm up. " * 300)
        warm_settings = Settings(store=folder / "warm-store", embedder="hashing")
        warm_index = Index(warm_settings.model_copy(update={"database_url": warm_url}))
        assert warm_index.ingest_paths([warm]).ok
        warm_index.close()
        self.index = Index(
            Settings(store=folder / "store", embedder="hashing", database_url=database_url)
        )
        self.ingest_s = self.edit_s = 0.0

    def ingest(self) -> None:
        report, self.ingest_s = timed(lambda: self.index.ingest_paths([self.manuals]))
        assert report.ok, report.errors
        md = self.manuals / "pump-x200.md"
        text = md.read_text(encoding="utf-8")
        assert NEEDLE in text
        md.write_text(text.replace(NEEDLE, NEEDLE.replace("48", "72")), encoding="utf-8")
        edit, self.edit_s = timed(lambda: self.index.ingest_paths([self.manuals]))
        changed = [d for d in edit.documents if d.status == "changed"]
        assert edit.ok and len(changed) == 1, edit.to_json()


def _query(stores: dict[str, _Store], questions: list[str]) -> dict[str, list[float]]:
    from retriever import Retriever

    retrievers = {name: Retriever(s.index) for name, s in stores.items()}
    for r in retrievers.values():
        r.query(r.request(questions[0], k=5))  # first touch: the BM25 index loads
    latencies: dict[str, list[float]] = {name: [] for name in stores}
    for _ in range(ROUNDS):
        for q in questions:
            for name, r in retrievers.items():
                _, seconds = timed(lambda r=r, q=q: r.query(r.request(q, k=5)))
                latencies[name].append(seconds * 1000)
    return latencies
