"""Query latency on a corpus scaled to 150k passages, against the floor measured in the same run.

Corpus: the fixture manuals are ingested once for real (all-MiniLM-L6-v2, extractive summaries),
then every document is replicated with varied text until there are 150,000 passages: each copy
renumbers every digit through its own permutation (part numbers, values, section numbers:
length-preserving, so character spans stay exact and BM25 sees a vocabulary that grows with the
corpus), and every passage and summary vector is its source vector plus Gaussian noise (cosine
about 0.9), so Chroma holds 150k passage and ~70k summary vectors with the real topic structure.
Rows are written straight into SQLite and Chroma (embedding 150k passages would take hours).
The corpus is cached in the temp folder, keyed by the fixtures' content.

Measured, each over distinct questions (the fixture questions, renumbered per copy), with the
query encoder the service makes from the settings (``make_embedder(settings, purpose="query")``:
all-MiniLM-L6-v2 on ONNX Runtime by default, one intra-op thread):
- ``floor``: encoding the query plus one raw Chroma query (the unavoidable part);
- ``query``: the whole retriever (dense + BM25 + fusion + results with text), with reranker
  ``none``, ``offline`` (the default) and ``cross-encoder`` (MiniLM weights + untrained head);
  single client, and 8 concurrent clients (throughput). Concurrent queries share encoder passes
  (``retriever.coalesce``) as a service's concurrent requests do; the same clients are also
  measured with every query encoded alone (``query_no_reranker_unbatched``). The floor is
  always one unbatched encode and one Chroma query per request. The floor and the query are also
  measured with the same model on torch (``*_torch_encoder``, sentence-transformers, one torch
  thread: what this benchmark measured before it used the service's encoder), in the same turns.
  Every retriever is warmed (``Retriever.warm``: the inner nodes of every served build read in
  bulk) before it is measured, as the HTTP service warms its own when it starts
  (``warm_up_seconds``);
- where the time goes (``stages``): every stage of the query without reranker and the floor's
  encode and vector search, timed per query, reported at p50, at p99 and over the slowest
  queries (``benchmarks.retriever_stages``), single client and 8 clients;
- the reranker's cost per candidate, the BM25 index build (full and after one new revision);
- query encoding with 1 and 2 torch threads, as is and with one more process holding a core
  (``torch_threads`` default).

Targets (issue 36): p50 within 1.3x the floor, p99 within 100 ms (single client and 8 clients);
the load average before and after the measurements is recorded beside them.

``python -m benchmarks.run retriever``; the same corpus at 1M passages is ``retriever_1m``.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import FIXTURES, peak_rss_mb, timed
from benchmarks.retriever_stages import FloorTimer, StageTimer, breakdown

TARGET_PASSAGES = int(os.environ.get("OVERSTORY_BENCH_PASSAGES", "150000"))
NOISE = 0.45  # norm of the added noise vector: cosine to the source vector ≈ 0.91
CLIENTS = 8
SINGLE_QUERIES = 150
CONCURRENT_QUERIES = 400
CROSS_ENCODER_QUERIES = int(os.environ.get("OVERSTORY_BENCH_CE_QUERIES", "30"))
CACHE_VERSION = "retriever-bench-v1"


# corpus ------------------------------------------------------------------------------------
def _fixture_files() -> list[Path]:
    return sorted(
        p
        for p in FIXTURES.iterdir()
        if p.suffix in (".md", ".html", ".pdf", ".txt") and p.name != "README.md"
    )


def _fixtures_key(*parts: str) -> str:
    from indexer.hashing import hash_parts

    return hash_parts([*parts, *(p.name + p.read_text("latin-1") for p in _fixture_files())])


def _cache_root(target: int = TARGET_PASSAGES) -> Path:
    key = _fixtures_key(CACHE_VERSION, str(target))
    return Path(tempfile.gettempdir()) / f"overstory-bench-retriever-{key[:12]}"


def corpus(target: int = TARGET_PASSAGES) -> tuple[Path, dict[str, Any]]:
    """The store scaled to ``target`` passages (built, or reused from the temp folder) and how
    it was made. The fixtures' real ingest is shared by every size."""
    root = _cache_root(target)
    store = root / "store"
    info_file = root / "corpus.json"
    if info_file.is_file():
        info: dict[str, Any] = json.loads(info_file.read_text())
        info["reused"] = True
        return store, info
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    base, base_seconds = timed(_base)
    info, seconds = timed(lambda: _replicate(base, store, target))
    info.update(base_ingest_seconds=round(base_seconds, 1), replicate_seconds=round(seconds, 1))
    info_file.write_text(json.dumps(info))
    info["reused"] = False
    return store, info


def _base() -> Any:
    """The fixture manuals ingested for real, once for every size of corpus."""
    from indexer.index import Index
    from indexer.settings import Settings

    folder = Path(tempfile.gettempdir()) / f"overstory-bench-retriever-base-{_fixtures_key()[:12]}"
    done = folder / "done"
    if not done.is_file():
        shutil.rmtree(folder, ignore_errors=True)
        _ingest_base(folder)
        done.touch()
    return Index(Settings(store=folder / "store"))


def _ingest_base(folder: Path) -> None:
    from indexer.index import Index
    from indexer.settings import Settings

    src = folder / "manuals"
    src.mkdir(parents=True)
    for p in _fixture_files():
        shutil.copy(p, src / p.name)
    index = Index(Settings(store=folder / "store"))
    report = index.ingest_paths([src])
    if not report.ok:
        raise RuntimeError(f"base ingest failed: {report.errors}")


def _replicate(base: Any, store: Path, target: int) -> dict[str, Any]:
    from indexer.hashing import hash_parts, hash_text
    from indexer.index import Index
    from indexer.ingest import vector_id
    from indexer.settings import Settings
    from indexer.store.records import NewSummary
    from indexer.store.rows import NodeRow

    catalog = base.catalog
    docs = []
    for row in catalog.documents():
        build = int(row["current_build"])
        nodes = [dict(r) for r in catalog.nodes_of_build(build)]
        keys = [n["summary_key"] for n in nodes if n["summary_key"]]
        summaries = {k: s.text for k, s in catalog.summaries(keys).items()}
        vectors = base.vectors.get(sorted({n["vector_id"] for n in nodes if n["vector_id"]}))
        b = catalog.build_inputs(build)
        docs.append((row["doc_id"], dict(b), nodes, summaries, vectors))
    per_copy = sum(sum(1 for n in d[2] if n["level"] == "passage") for d in docs)
    copies = math.ceil(target / per_copy)

    index = Index(Settings(store=store))
    rng = np.random.default_rng(0)
    n_passages = n_summaries = 0
    pending = _VectorBatch(index)
    started = time.perf_counter()
    for c in range(copies):
        if c % 50 == 0:
            print(f"copy {c}/{copies} {time.perf_counter() - started:.0f} s", file=sys.stderr)
        table = str.maketrans("0123456789", "".join(map(str, rng.permutation(10))))
        for doc_id, build, nodes, summaries, vectors in docs:
            new_doc = f"copy-{c:03d}/{doc_id}"
            text = build["text"].translate(table)
            build_id = index.catalog.start_build(
                doc_id=new_doc,
                source=new_doc,
                revision=hash_parts([str(c), text]),
                fmt=build["format"],
                summarizer=build["summarizer"],
                embedder=build["embedder"],
                text=text,
            )
            ids = {n["node_id"]: hash_parts([new_doc, str(build_id), str(n["ordinal"])])[:20]
                   for n in nodes}  # fmt: skip
            rows, put, vec_ids, vecs, kinds = [], [], [], [], []
            for n in nodes:
                new = dict(n)
                new.update(
                    node_id=ids[n["node_id"]],
                    build_id=build_id,
                    doc_id=new_doc,
                    parent_id=ids.get(n["parent_id"]) if n["parent_id"] else None,
                    title=n["title"].translate(table) if n["title"] else n["title"],
                    heading_path=json.dumps(
                        [h.translate(table) for h in json.loads(n["heading_path"])]
                    ),
                    first_passage=ids.get(n["first_passage"]) if n["first_passage"] else None,
                    last_passage=ids.get(n["last_passage"]) if n["last_passage"] else None,
                    covers=json.dumps([ids[i] for i in json.loads(n["covers"])])
                    if n["covers"]
                    else None,
                )
                if n["level"] == "passage":
                    new["text"] = n["text"].translate(table)
                    new["hash"] = hash_text(new["text"])
                    kind, body = "p", new["text"]
                    n_passages += 1
                elif n["summary_key"]:
                    body = summaries[n["summary_key"]].translate(table)
                    new["summary_key"] = hash_parts(["bench", n["summary_key"], str(c)])
                    put.append(
                        NewSummary(
                            key=new["summary_key"],
                            text=body,
                            backend="extractive",
                            model="tfidf-centrality",
                            prompt_version="bench",
                        )
                    )
                    kind = "s"
                    n_summaries += 1
                if n["vector_id"] and n["vector_id"] in vectors:
                    vid = vector_id(new_doc, kind, hash_text(f"{n['level']}:{body}"))
                    new["vector_id"] = vid
                    if vid not in vec_ids:
                        vec_ids.append(vid)
                        vecs.append(vectors[n["vector_id"]])
                        kinds.append(kind)
                else:
                    new["vector_id"] = None
                rows.append(NodeRow(**new))
            if put:
                index.catalog.put_summaries(put)
            index.catalog.finish_build(
                build_id,
                doc_id=new_doc,
                source=new_doc,
                root_node=ids[nodes[0]["node_id"]],
                nodes=rows,
                report={},
            )
            mat = np.stack(vecs)
            noise = rng.normal(size=mat.shape).astype(np.float32)
            noise *= NOISE / np.linalg.norm(noise, axis=1, keepdims=True)
            mat = mat + noise
            mat /= np.linalg.norm(mat, axis=1, keepdims=True)
            pending.add(vec_ids, mat, doc_id=new_doc, kinds=kinds)
    pending.finish()
    return {
        "copies": copies,
        "documents": copies * len(docs),
        "passages": n_passages,
        "summaries": n_summaries,
        "vectors": index.vectors.count(),
    }


class _VectorBatch:
    """Vectors written in batches of many documents, with Chroma's HNSW graph saved to disk
    rarely while the corpus is written. One write per document (~130 vectors) under Chroma's
    defaults saved the whole graph every 1,000 vectors: a build slowing down with its size
    (50 copies took 10 s at first and 35 s after 300)."""

    SIZE = 20_000
    HELD_BACK = 200  # written under the defaults at the end: the graph is saved once more

    def __init__(self, index: Any) -> None:
        self.index = index
        self.chroma = index.vectors.inner.collection
        self.chroma.modify(
            configuration={"hnsw": {"batch_size": 10_000, "sync_threshold": 250_000}}
        )
        self.ids: list[str] = []
        self.mats: list[np.ndarray] = []
        self.doc_ids: list[str] = []
        self.kinds: list[str] = []

    def add(self, ids: list[str], mat: np.ndarray, *, doc_id: str, kinds: list[str]) -> None:
        if len(self.ids) >= self.SIZE:
            self._write(len(self.ids))
        self.ids += ids
        self.mats.append(mat)
        self.doc_ids += [doc_id] * len(ids)
        self.kinds += kinds

    def finish(self) -> None:
        """Write what is left, the last vectors under Chroma's default thresholds (so that the
        graph is saved, and the collection is left as an ingest would leave it)."""
        self._write(max(len(self.ids) - self.HELD_BACK, 0))
        self.chroma.modify(configuration={"hnsw": {"batch_size": 100, "sync_threshold": 1000}})
        self._write(len(self.ids))

    def _write(self, n: int) -> None:
        if n <= 0:
            return
        mat = np.concatenate(self.mats)
        self.index.vectors.upsert(
            self.ids[:n], mat[:n], doc_ids=self.doc_ids[:n], kinds=self.kinds[:n]
        )
        self.ids, self.mats = self.ids[n:], [mat[n:]]
        self.doc_ids, self.kinds = self.doc_ids[n:], self.kinds[n:]


# queries -----------------------------------------------------------------------------------
def questions(n: int) -> list[str]:
    """``n`` distinct questions: the fixture questions, renumbered like the copies."""
    base = [
        json.loads(line)["question"]
        for line in (FIXTURES / "questions.jsonl").read_text().splitlines()
        if line.strip()
    ]
    rng = np.random.default_rng(1)
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n:
        q = base[len(out) % len(base)]
        if len(out) >= len(base):
            table = str.maketrans("0123456789", "".join(map(str, rng.permutation(10))))
            q = f"{q.translate(table)} (unit {rng.integers(1000, 9999)})"
        if q not in seen:
            seen.add(q)
            out.append(q)
    return out


def _stats(ms: list[float]) -> dict[str, float]:
    arr = np.asarray(ms)
    return {
        "p50_ms": round(float(np.percentile(arr, 50)), 2),
        "p99_ms": round(float(np.percentile(arr, 99)), 2),
        "mean_ms": round(float(arr.mean()), 2),
        "n": len(ms),
    }


def _single(fn: Any, qs: list[str]) -> dict[str, float]:
    return _paired({"x": fn}, qs)["x"]


def _paired(fns: dict[str, Any], qs: list[str]) -> dict[str, dict[str, float]]:
    """Latency of each function on every question, alternating per question so that all of them
    see the same load (the machine is shared: a figure is only meaningful next to its floor).
    Also the calling thread's CPU time (``cpu_p50_ms``), which other processes do not inflate
    (the encoder runs one thread, the calling one)."""
    for q in qs[:5]:
        for fn in fns.values():
            fn(q)
    ms: dict[str, list[float]] = {name: [] for name in fns}
    cpu: dict[str, list[float]] = {name: [] for name in fns}
    for q in qs:
        for name, fn in fns.items():
            started, started_cpu = time.perf_counter(), time.thread_time()
            fn(q)
            cpu[name].append((time.thread_time() - started_cpu) * 1000)
            ms[name].append((time.perf_counter() - started) * 1000)
    return {
        name: {**_stats(values), "cpu_p50_ms": round(float(np.percentile(cpu[name], 50)), 2)}
        for name, values in ms.items()
    }


def _concurrent(fns: dict[str, Any], qs: list[str], clients: int, *, rounds: int = 4) -> Any:
    """Each function's latency with ``clients`` concurrent clients, and its throughput. The
    questions are cut into ``rounds`` and the functions take turns on each round, so that a
    change of load on the shared machine falls on all of them alike."""
    ms: dict[str, list[float]] = {name: [] for name in fns}
    wall = dict.fromkeys(fns, 0.0)
    lock = threading.Lock()
    size = math.ceil(len(qs) / rounds)
    for r in range(rounds):
        part = qs[r * size : (r + 1) * size]
        for name, fn in fns.items():

            def one(q: str, fn: Any = fn, name: str = name) -> None:
                started = time.perf_counter()
                fn(q)
                elapsed = (time.perf_counter() - started) * 1000
                with lock:
                    ms[name].append(elapsed)

            started = time.perf_counter()
            with ThreadPoolExecutor(clients) as pool:
                list(pool.map(one, part))
            wall[name] += time.perf_counter() - started
    return {
        name: {
            **_stats(ms[name]),
            "clients": clients,
            "throughput_qps": round(len(qs) / wall[name], 1),
        }
        for name in fns
    }


class _Busy:
    """Another process holding one core (a busy loop), as on a shared machine."""

    def __enter__(self) -> _Busy:
        self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(0.5)
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.kill()
        self.proc.wait(10)


def encode_threads(embedder: Any, qs: list[str]) -> dict[str, Any]:
    """Query encode latency with 1 and 2 torch threads, quiet and under load."""
    import torch

    before = torch.get_num_threads()
    out: dict[str, Any] = {}
    try:
        for load in ("as_is", "one_core_busy"):
            for threads in (1, 2):
                torch.set_num_threads(threads)

                def encode(q: str) -> None:
                    embedder.embed([q])

                if load == "as_is":
                    out[f"{load}_{threads}_threads"] = _single(encode, qs[:60])
                else:
                    with _Busy():
                        out[f"{load}_{threads}_threads"] = _single(encode, qs[:60])
    finally:
        torch.set_num_threads(before)
    return out


def main() -> dict[str, Any]:
    """Build or reuse the corpus, then measure."""
    from indexer.embedding.minilm import MiniLMEmbedder
    from indexer.index import Index
    from indexer.settings import Settings
    from retriever.rerankers.cross_encoder import CrossEncoderReranker
    from retriever.rerankers.fusion import FusionOrder
    from retriever.rerankers.offline import CalibratedReranker
    from retriever.retriever import Retriever

    store, info = corpus()
    result: dict[str, Any] = {"corpus": info, "cpus": os.cpu_count()}
    load_before = os.getloadavg()[0]
    settings = Settings(store=store)
    index = Index(settings)
    embedder = query_encoder(settings)
    torch_embedder = MiniLMEmbedder(threads=settings.torch_threads)
    result["encoder"] = {"name": embedder.name, "runtime": type(embedder).__name__}
    qs = questions(SINGLE_QUERIES + CONCURRENT_QUERIES)
    single, many = qs[:SINGLE_QUERIES], qs[SINGLE_QUERIES:]

    # BM25 index: a full build from scratch, the refresh after one new revision in the same
    # (long-lived) process, and loading the persisted index in a new process.
    lexical = store / "lexical"
    shutil.rmtree(lexical, ignore_errors=True)
    retriever = Retriever(index, embedder=embedder, reranker=FusionOrder())
    _, full = timed(retriever.lexical.refresh)
    one = index.catalog.documents()[0]
    _publish_new_revision(index, one["doc_id"])
    _, revision = timed(retriever.lexical.refresh)
    fresh = Retriever(index, embedder=embedder, reranker=FusionOrder())
    _, load = timed(fresh.lexical.refresh)
    result["bm25_index"] = {
        "full_build_seconds": round(full, 2),
        "one_new_revision_seconds": round(revision, 2),
        "load_in_new_process_seconds": round(load, 2),
    }
    one = index.catalog.require_document(one["doc_id"])

    floor = FloorTimer(
        lambda q: embedder.embed([q])[0],
        lambda v: index.vectors.query(v, retriever.pipeline.dense_candidates),
    )

    floor_torch = FloorTimer(
        lambda q: torch_embedder.embed([q])[0],
        lambda v: index.vectors.query(v, retriever.pipeline.dense_candidates),
    )

    warm_seconds: list[float] = []

    def made(reranker: Any, *, coalesce: bool = True, encoder: Any = embedder) -> Retriever:
        """A retriever warmed as the HTTP service warms its own when it starts."""
        r = Retriever(index, embedder=encoder, reranker=reranker, coalesce=coalesce)
        warm_seconds.append(timed(r.warm)[1])
        return r

    def run_with(reranker: Any, *, coalesce: bool = True) -> Any:
        r = made(reranker, coalesce=coalesce)
        return lambda q: r.query(r.request(q, k=5))

    plain = made(FusionOrder())
    plain_stages = StageTimer(plain)

    def none(q: str) -> Any:
        return plain_stages.query(plain.request(q, k=5))

    offline = run_with(CalibratedReranker())
    restricted = made(FusionOrder())
    on_torch = made(FusionOrder(), encoder=torch_embedder)

    def torch_query(q: str) -> Any:
        return on_torch.query(on_torch.request(q, k=5))

    docs = [one["doc_id"]]
    result["single_client"] = _paired(
        {
            "floor_encode_plus_chroma": floor,
            "query_no_reranker": none,
            "query_offline_reranker": offline,
            "query_one_document_no_reranker": lambda q: restricted.query(
                restricted.request(q, k=5, documents=docs)
            ),
            "floor_torch_encoder": floor_torch,
            "query_no_reranker_torch_encoder": torch_query,
        },
        single,
    )
    result["stages"] = {
        "single_client": {
            "floor": breakdown(floor.queries[-len(single) :]),
            "query_no_reranker": breakdown(plain_stages.queries[-len(single) :]),
        }
    }
    # Both concurrent retrievers start from the same warm caches (the single-client questions).
    batches = made(FusionOrder())
    unbatched = run_with(FusionOrder(), coalesce=False)
    for q in single:
        batches.query(batches.request(q, k=5))
        unbatched(q)
        torch_query(q)
    batch_stages = StageTimer(batches)
    floor.queries.clear()
    result["concurrent"] = _concurrent(
        {
            "floor_encode_plus_chroma": floor,
            "query_no_reranker": lambda q: batch_stages.query(batches.request(q, k=5)),
            "query_no_reranker_unbatched": unbatched,
            "query_offline_reranker": offline,
            "floor_torch_encoder": floor_torch,
            "query_no_reranker_torch_encoder": torch_query,
        },
        many,
        CLIENTS,
    )
    result["stages"]["concurrent"] = {
        "floor": breakdown(floor.queries),
        "query_no_reranker": breakdown(batch_stages.queries),
    }
    plain_stages.close()
    batch_stages.close()
    coalescer = batches.encoder
    if coalescer is not None and coalescer.batches:
        result["concurrent"]["query_no_reranker"]["mean_encode_batch"] = round(
            coalescer.items / coalescer.batches, 2
        )

    ce_dir = _cross_encoder_dir(store.parent)
    ce = run_with(CrossEncoderReranker(str(ce_dir), threads=settings.torch_threads))
    ce_pair = _paired({"ce": ce, "none": none}, single[:CROSS_ENCODER_QUERIES])
    ce_stats, base_stats = ce_pair["ce"], ce_pair["none"]
    n = retriever.pipeline.rerank_candidates
    result["single_client"]["query_cross_encoder_reranker"] = ce_stats
    s, f = result["single_client"], result["single_client"]["floor_encode_plus_chroma"]
    result["reranker_cost"] = {
        "candidates": n,
        "cross_encoder_ms_per_candidate": round((ce_stats["p50_ms"] - base_stats["p50_ms"]) / n, 2),
        "offline_ms_per_candidate": round(
            (s["query_offline_reranker"]["p50_ms"] - s["query_no_reranker"]["p50_ms"]) / n, 3
        ),
    }
    c = result["concurrent"]["query_no_reranker"]
    cf = result["concurrent"]["floor_encode_plus_chroma"]
    result["targets"] = {
        "p50_no_reranker_over_floor": round(s["query_no_reranker"]["p50_ms"] / f["p50_ms"], 2),
        "p50_within_1_3x_floor": s["query_no_reranker"]["p50_ms"] <= 1.3 * f["p50_ms"],
        "p50_cpu_no_reranker_over_floor": round(
            s["query_no_reranker"]["cpu_p50_ms"] / f["cpu_p50_ms"], 2
        ),
        "p99_no_reranker_ms": s["query_no_reranker"]["p99_ms"],
        "p99_within_100ms": s["query_no_reranker"]["p99_ms"] <= 100,
        "concurrent_p50_over_floor": round(c["p50_ms"] / cf["p50_ms"], 2),
        "concurrent_p99_ms": c["p99_ms"],
        "concurrent_p99_within_100ms": c["p99_ms"] <= 100,
        "concurrent_floor_p99_ms": cf["p99_ms"],
    }
    result["warm_up_seconds"] = {
        "median": round(float(np.median(warm_seconds)), 2),
        "max": round(max(warm_seconds), 2),
    }
    result["load_average"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    result["encode_threads"] = encode_threads(torch_embedder, single)
    result["peak_rss_mb"] = round(peak_rss_mb(), 1)
    return result


def query_encoder(settings: Any) -> Any:
    """The query encoder a retriever of the service makes from ``settings`` (the floor and
    the query are measured with it)."""
    from indexer.embedding import make_embedder

    return make_embedder(settings, purpose="query")


def _publish_new_revision(index: Any, doc_id: str) -> None:
    """Publish a new build of one document (its nodes copied under new ids), as an ingest of a
    new revision would: the BM25 refresh then tokenizes that build and merges the others."""
    from indexer.hashing import hash_parts
    from indexer.store.rows import NodeRow

    row = index.catalog.require_document(doc_id)
    old = int(row["current_build"])
    nodes = [dict(r) for r in index.catalog.nodes_of_build(old)]
    build = index.catalog.build_inputs(old)
    new = index.catalog.start_build(
        doc_id=doc_id,
        source=row["source"],
        revision=hash_parts([doc_id, str(time.time())]),
        fmt=build["format"],
        summarizer=build["summarizer"],
        embedder=build["embedder"],
        text=build["text"],
    )
    ids = {n["node_id"]: hash_parts([doc_id, str(new), str(n["ordinal"])])[:20] for n in nodes}
    rows = []
    for n in nodes:
        n = dict(n)
        for key in ("node_id", "parent_id", "first_passage", "last_passage"):
            n[key] = ids.get(n[key]) if n[key] else None
        if n["covers"]:
            n["covers"] = json.dumps([ids[i] for i in json.loads(n["covers"])])
        n["build_id"] = new
        rows.append(NodeRow(**n))
    index.catalog.finish_build(
        new, doc_id=doc_id, source=row["source"], root_node=rows[0].node_id, nodes=rows, report={}
    )


def _cross_encoder_dir(root: Path) -> Path:
    """A cross-encoder from the bundled MiniLM weights with an untrained head (speed only)."""
    path = root / "cross-encoder"
    if not (path / "config.json").is_file():
        import torch
        from sentence_transformers import CrossEncoder

        from indexer.tokens import model_dir

        torch.manual_seed(0)
        CrossEncoder(str(model_dir()), num_labels=1, device="cpu").save(str(path))
    return path


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
