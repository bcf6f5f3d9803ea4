"""Query-free selection speed at 500, 10,000 and 100,000 stored passages, K = 10 and 50.

The stores are written directly (SQLite catalog rows + Chroma vectors), because embedding 100k
passages would take over an hour: the vectors are a few hundred real all-MiniLM-L6-v2 vectors of
the fixture manuals' passages, each copied many times with Gaussian noise (cosine ≈ 0.85 to its
source), so the data keeps the real topic structure. Each passage stores its source passage's
text, so labels and provenance work as in a real store.

Timed end to end: ``select(index, request)`` on a long-lived index (the HTTP service case),
loading of the stored vectors included — from the per-build matrix cache ("warm", the normal
case) and once per size from Chroma ("cold", first call after a new build). Baselines measured in
the same run on the same matrix: one scikit-learn ``MiniBatchKMeans`` fit and, up to 10,000
passages, one ``KMeans(n_init="auto")`` fit, so figures can be read as ratios on a shared,
noisy machine. ``python -m benchmarks.run select``.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import FIXTURES, timed

SIZES = (500, 10_000, 100_000)
KS = (10, 50)
METHODS = ("centroid", "rank", "balanced")
PER_DOCUMENT = 500
NOISE = 0.6
REPEATS = {500: 5, 10_000: 3, 100_000: 1}


def base_passages() -> tuple[list[str], np.ndarray]:
    """Passages of the fixture manuals and their real MiniLM vectors (embedded once here)."""
    from indexer.embedding.minilm import MiniLMEmbedder
    from indexer.parsers import parse_bytes
    from indexer.settings import Settings
    from indexer.tree import build_tree

    settings = Settings()
    texts: list[str] = []
    for path in sorted(FIXTURES.iterdir()):
        if path.suffix not in (".md", ".html", ".pdf", ".txt") or path.name == "README.md":
            continue
        doc = parse_bytes(path.read_bytes(), filename=path.name)
        tree = build_tree(doc, chunk_tokens=settings.chunk_tokens, overlap=settings.chunk_overlap)
        texts.extend(p.text or "" for p in tree.passages() if (p.text or "").strip())
    vectors = MiniLMEmbedder(threads=settings.ingest_threads).embed(texts)
    return texts, vectors


def write_store(folder: Path, n: int, texts: list[str], base: np.ndarray, *, seed: int) -> Any:
    """A store with ``n`` synthetic passages in documents of ``PER_DOCUMENT`` passages."""
    from indexer.hashing import hash_parts, hash_text
    from indexer.index import Index
    from indexer.ingest import vector_id
    from indexer.settings import Settings
    from indexer.store.rows import NodeRow

    columns = [f.name for f in fields(NodeRow)]
    index = Index(Settings(store=folder, embedder="minilm"))
    rng = np.random.default_rng(seed)
    source = rng.integers(0, len(texts), size=n)
    noise = rng.normal(size=(n, base.shape[1])).astype(np.float32)
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    vectors = base[source] + NOISE * noise
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for d, start in enumerate(range(0, n, PER_DOCUMENT)):
        rows = np.arange(start, min(start + PER_DOCUMENT, n))
        doc_id = f"synthetic/manual-{d:04d}.md"
        parts = [texts[source[i]] for i in rows]
        body = "\n\n".join(parts)
        build = index.catalog.start_build(
            doc_id=doc_id,
            source=doc_id,
            revision=hash_text(body),
            fmt="markdown",
            summarizer="none",
            embedder="all-MiniLM-L6-v2",
            text=body,
        )
        title = f"Synthetic manual {d}"
        root = hash_parts([doc_id, str(build), "0"])[:20]
        nodes: list[tuple[Any, ...]] = [
            (root, build, doc_id, None, 0, "document", title, f'["{title}"]', 0, len(body),
             None, None, hash_text(body), None, None, None, len(rows), None, None, None),
        ]  # fmt: skip
        ids: list[str] = []
        offset = 0
        ordinal = 1
        chapter_id = root
        for j, (i, text) in enumerate(zip(rows, parts, strict=True)):
            if j % 50 == 0:
                chapter_id = hash_parts([doc_id, str(build), str(ordinal)])[:20]
                path = f'["{title}", "Chapter {j // 50 + 1}"]'
                nodes.append(
                    (chapter_id, build, doc_id, root, ordinal, "chapter", f"Chapter {j // 50 + 1}",
                     path, offset, offset, None, None, "", None, None, None, 0, None, None, None)
                )  # fmt: skip
                ordinal += 1
            node_id = hash_parts([doc_id, str(build), str(ordinal)])[:20]
            vid = vector_id(doc_id, "p", hash_text(f"{i}:{text}"))
            ids.append(vid)
            nodes.append(
                (node_id, build, doc_id, chapter_id, ordinal, "passage", None, path, offset,
                 offset + len(text), None, None, hash_text(text), text, None, vid, 1, node_id,
                 node_id, None)
            )  # fmt: skip
            offset += len(text) + 2
            ordinal += 1
        index.catalog.finish_build(
            build,
            doc_id=doc_id,
            source=doc_id,
            root_node=root,
            nodes=[NodeRow(**dict(zip(columns, n, strict=True))) for n in nodes],
            report={},
        )
        index.vectors.upsert(
            ids, vectors[rows], doc_ids=[doc_id] * len(ids), kinds=["p"] * len(ids)
        )
    return index


def _median_time(fn: Any, repeats: int) -> float:
    return statistics.median(timed(fn)[1] for _ in range(repeats))


def bench_size(index: Any, n: int) -> dict[str, Any]:
    """Timings of one store size."""
    from sklearn.cluster import KMeans, MiniBatchKMeans
    from threadpoolctl import threadpool_limits

    from retriever.selection import SelectionRequest, select
    from retriever.selection.vectors import CACHE_DIR, load_passages

    out: dict[str, Any] = {"passages": n}
    shutil.rmtree(index.settings.store / CACHE_DIR, ignore_errors=True)
    # Chroma alone: the cost a vector-matrix cache avoids.
    _, out["chroma_load_seconds"] = timed(lambda: load_passages(index, use_cache=False))
    shutil.rmtree(index.settings.store / CACHE_DIR, ignore_errors=True)
    _, out["cold_select_seconds"] = timed(lambda: select(index, SelectionRequest(k=10)))
    repeats = REPEATS[n]
    out["warm_load_seconds"] = _median_time(lambda: load_passages(index), repeats)
    matrix = load_passages(index).vectors
    for k in KS:
        row: dict[str, Any] = {}
        with threadpool_limits(limits=index.settings.select_threads):
            row["baseline_minibatch_seconds"] = _median_time(
                lambda k=k: MiniBatchKMeans(k, n_init="auto", random_state=0).fit(matrix),
                repeats,
            )
        with threadpool_limits(limits=index.settings.select_threads):
            if n <= 10_000:
                row["baseline_kmeans_seconds"] = _median_time(
                    lambda k=k: KMeans(k, n_init="auto", random_state=0).fit(matrix), repeats
                )
        for method in METHODS:
            request = SelectionRequest(k=k, method=method)
            seconds = _median_time(lambda r=request: select(index, r), repeats)
            row[method] = {
                "seconds": round(seconds, 3),
                "vs_minibatch": round(seconds / row["baseline_minibatch_seconds"], 2),
            }
        row["baseline_minibatch_seconds"] = round(row["baseline_minibatch_seconds"], 3)
        if "baseline_kmeans_seconds" in row:
            row["baseline_kmeans_seconds"] = round(row["baseline_kmeans_seconds"], 3)
        out[f"k={k}"] = row
        print(f"  n={n:>7,} K={k}: {row}", flush=True)
    for key in ("chroma_load_seconds", "cold_select_seconds", "warm_load_seconds"):
        out[key] = round(out[key], 3)
    return out


def main() -> dict[str, Any]:
    """Run the benchmark; returns the figures (written by ``benchmarks.run``)."""
    started = time.perf_counter()
    result: dict[str, Any] = {"load_average_start": os.getloadavg(), "cores": os.cpu_count()}
    (texts, base), seconds = timed(base_passages)
    result["base_vectors"] = {"passages": len(texts), "embed_seconds": round(seconds, 1)}
    sizes: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-select-") as tmp:
        for n in SIZES:
            started_n = time.perf_counter()
            index = write_store(Path(tmp) / str(n), n, texts, base, seed=n)
            seconds = time.perf_counter() - started_n
            print(f"n={n:,}: store written in {seconds:.1f}s", flush=True)
            sizes[str(n)] = {"store_write_seconds": round(seconds, 1), **bench_size(index, n)}
            index.close()
    result["sizes"] = sizes
    growth: dict[str, Any] = {}
    for k in KS:
        for method in (*METHODS, "baseline_minibatch_seconds"):

            def secs(n: int, k: int = k, method: str = method) -> float:
                value = sizes[str(n)][f"k={k}"][method]
                return float(value["seconds"] if isinstance(value, dict) else value)

            growth[f"{method.removesuffix('_seconds')} k={k}"] = {
                "10k/500 (n ×20)": round(secs(10_000) / secs(500), 1),
                "100k/10k (n ×10)": round(secs(100_000) / secs(10_000), 1),
            }
    result["growth"] = growth
    result["load_average_end"] = os.getloadavg()
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


if __name__ == "__main__":
    import json

    print(json.dumps(main(), indent=2))
