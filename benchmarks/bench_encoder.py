"""The encoder on ONNX Runtime (fp32 and int8) against torch, in one run.

Measured, each as a ratio against torch (sentence-transformers, the same bundled weights)
measured in the same run, on the same passages and queries:

- ``encode``: passages per second (the fixture manuals' passages, 2 threads, batches of 32);
- ``build``: a full ingest of the fixture manuals into a new store (extractive summaries);
- ``query_100k``: p50 of the whole query at 100k passages (the retriever benchmark's corpus,
  1 thread), paired question by question;
- ``serve``: ``overstory serve`` start to its first answered query, and the service's peak RSS
  after 50 queries (``VmHWM``);
- ``cli``: wall time of ``overstory docs`` and ``overstory query`` from a cold process;
- ``eval``: the fixture questions on a store built and queried with each encoder (hits counted);
- ``cosine``: between each ONNX vector and the torch vector of the same passage.

``python -m benchmarks.run encoder``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from benchmarks.common import FIXTURES, ROOT
from benchmarks.corpora import fixtures_folder

BIN = Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv")) / "bin"
ENCODERS = {
    "torch": {"encoder_runtime": "torch", "encoder_precision": "fp32"},
    "onnx_fp32": {"encoder_runtime": "onnx", "encoder_precision": "fp32"},
    "onnx_int8": {"encoder_runtime": "onnx", "encoder_precision": "int8"},
}
QUERIES = 200
SERVE_QUERIES = 50
ROUNDS = 3


def _settings(store: Path, encoder: str, **extra: Any) -> Any:
    from indexer.settings import Settings

    return Settings(store=store, **ENCODERS[encoder], **extra)


def _embedder(encoder: str, threads: int) -> Any:
    from indexer.embedding import make_embedder

    settings = _settings(Path("unused"), encoder, ingest_threads=threads, torch_threads=threads)
    return make_embedder(settings, purpose="ingest")


def _passages(workdir: Path) -> list[str]:
    """The fixture manuals' passages (chunked as ingest does; hashing vectors, no model)."""
    from indexer.index import Index
    from indexer.settings import Settings

    index = Index(Settings(store=workdir / "passages", embedder="hashing", clustering="off"))
    index.ingest_paths([fixtures_folder()])
    out = []
    for doc in index.catalog.served_documents():
        out += [r.text for r in index.catalog.nodes.vector_sources_of_build(doc.build_id)]
    return out


def _encode(passages: list[str]) -> dict[str, Any]:
    embedders = {name: _embedder(name, 2) for name in ENCODERS}
    vectors = {name: e.embed(passages[:64]) for name, e in embedders.items()}  # warm
    seconds: dict[str, list[float]] = {name: [] for name in ENCODERS}
    for _ in range(ROUNDS):
        for name, e in embedders.items():
            started = time.perf_counter()
            vectors[name] = e.embed(passages)
            seconds[name].append(time.perf_counter() - started)
    best = {name: min(values) for name, values in seconds.items()}
    out: dict[str, Any] = {"passages": len(passages), "threads": 2}
    for name in ENCODERS:
        out[name] = {"passages_per_second": round(len(passages) / best[name], 1)}
        out[name]["ratio_vs_torch"] = round(best["torch"] / best[name], 2)
    for name in ("onnx_fp32", "onnx_int8"):
        cos = (vectors[name] * vectors["torch"]).sum(axis=1)
        out[name]["cosine_min"] = round(float(cos.min()), 6)
        out[name]["cosine_mean"] = round(float(cos.mean()), 6)
    return out


def _build(workdir: Path) -> tuple[dict[str, Any], dict[str, Path]]:
    from indexer.index import Index

    stores: dict[str, Path] = {}
    seconds: dict[str, float] = {}
    for name in ENCODERS:
        store = workdir / f"build-{name}"
        index = Index(_settings(store, name))
        started = time.perf_counter()
        report = index.ingest_paths([fixtures_folder()])
        seconds[name] = time.perf_counter() - started
        if not report.ok:
            raise RuntimeError(f"{name} build failed: {report.errors}")
        index.close()
        stores[name] = store
    out = {
        name: {"seconds": round(s, 2), "ratio_vs_torch": round(seconds["torch"] / s, 2)}
        for name, s in seconds.items()
    }
    return out, stores


def _eval(stores: dict[str, Path]) -> dict[str, Any]:
    from indexer.index import Index
    from retriever.evaluation import Evaluation, load_questions
    from retriever.retriever import Retriever

    questions = load_questions(FIXTURES / "questions.jsonl")
    out: dict[str, Any] = {}
    for name, store in stores.items():
        report = Evaluation(Retriever(Index(_settings(store, name)))).run(questions)
        out[name] = {
            group: {
                "n": m.n,
                "hits@1": round(m.hit_at_1 * m.n),
                "hits@5": round(m.hit_at_5 * m.n),
            }
            for group, m in report.systems["overstory"].items()
            if group in ("specific", "global")
        }
    for name in ("onnx_fp32", "onnx_int8"):
        out[name]["questions_lost_vs_torch"] = sum(
            max(0, out["torch"][g][k] - out[name][g][k])
            for g in ("specific", "global")
            for k in ("hits@1", "hits@5")
        )
    return out


def _query_100k() -> dict[str, Any]:
    from benchmarks.bench_retriever import _paired, corpus, questions
    from indexer.index import Index
    from retriever.retriever import Retriever

    store, info = corpus()
    index = Index(_settings(store, "onnx_fp32"))
    fns: dict[str, Callable[[str], Any]] = {}
    for name in ENCODERS:
        if name == "onnx_int8":
            continue  # the corpus holds fp32 vectors; int8 would be refused (reembed first)
        retriever = Retriever(index, embedder=_embedder(name, 1))
        fns[name] = lambda q, r=retriever: r.query(r.request(q, k=10))
    stats = _paired(fns, questions(QUERIES))
    out: dict[str, Any] = {"passages": info.get("passages"), **stats}
    out["onnx_fp32"]["p50_ratio_vs_torch"] = round(
        stats["onnx_fp32"]["p50_ms"] / stats["torch"]["p50_ms"], 3
    )
    return out


def _vm_hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _serve_once(store: Path, encoder: str, port: int) -> dict[str, float]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OVERSTORY_AUTH": "off"}
    env.update({f"OVERSTORY_{k.upper()}": v for k, v in ENCODERS[encoder].items()})
    cmd = [str(BIN / "overstory"), "serve", "--host", "127.0.0.1", "--port", str(port),
           "--store", str(store), "--no-access-log"]  # fmt: skip
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    url = f"http://127.0.0.1:{port}/v1/query"
    try:
        first = None
        while first is None:
            if proc.poll() is not None:
                raise RuntimeError(f"overstory serve ({encoder}) exited with {proc.returncode}")
            try:
                if httpx.post(url, json={"query": "seal", "k": 5}, timeout=60).status_code == 200:
                    first = time.perf_counter() - started
            except httpx.HTTPError:
                time.sleep(0.05)
        with httpx.Client(timeout=60) as client:
            from benchmarks.bench_retriever import questions

            for q in questions(SERVE_QUERIES):
                client.post(url, json={"query": q, "k": 5}).raise_for_status()
        return {"first_answer_seconds": first, "peak_rss_mb": _vm_hwm_mb(proc.pid)}
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def _serve(store: Path) -> dict[str, Any]:
    from benchmarks.bench_http_load import _free_port

    runs: dict[str, list[dict[str, float]]] = {"torch": [], "onnx_fp32": []}
    for _ in range(2):
        for name in runs:
            runs[name].append(_serve_once(store, name, _free_port()))
    out: dict[str, Any] = {}
    for name, values in runs.items():
        out[name] = {
            "first_answer_seconds": round(min(v["first_answer_seconds"] for v in values), 2),
            "peak_rss_mb": round(max(v["peak_rss_mb"] for v in values), 1),
        }
    out["onnx_fp32"]["first_answer_ratio_vs_torch"] = round(
        out["onnx_fp32"]["first_answer_seconds"] / out["torch"]["first_answer_seconds"], 3
    )
    out["onnx_fp32"]["peak_rss_ratio_vs_torch"] = round(
        out["onnx_fp32"]["peak_rss_mb"] / out["torch"]["peak_rss_mb"], 3
    )
    return out


def _cli(store: Path) -> dict[str, Any]:
    commands = {
        "docs": ["docs", "--store", str(store), "--json"],
        "query": ["query", "replace the mechanical seal", "--store", str(store), "--json"],
    }
    out: dict[str, Any] = {}
    for label, args in commands.items():
        times: dict[str, list[float]] = {"torch": [], "onnx_fp32": []}
        for _ in range(ROUNDS):
            for name in times:
                env = {**os.environ, "HF_HUB_OFFLINE": "1"}
                env.update({f"OVERSTORY_{k.upper()}": v for k, v in ENCODERS[name].items()})
                started = time.perf_counter()
                subprocess.run([str(BIN / "overstory"), *args], env=env, check=True,
                               capture_output=True)  # fmt: skip
                times[name].append(time.perf_counter() - started)
        out[label] = {name: round(float(np.median(v)), 2) for name, v in times.items()}
        out[label]["ratio_vs_torch"] = round(out[label]["onnx_fp32"] / out[label]["torch"], 3)
    return out


def main() -> dict[str, Any]:
    """Measure every figure of the module docstring."""
    workdir = Path(tempfile.mkdtemp(prefix="overstory-bench-encoder-"))
    try:
        result: dict[str, Any] = {"cpus": os.cpu_count()}
        result["encode"] = _encode(_passages(workdir))
        result["build"], stores = _build(workdir)
        result["eval"] = _eval(stores)
        result["query_100k"] = _query_100k()
        result["serve"] = _serve(stores["onnx_fp32"])
        result["cli"] = _cli(stores["onnx_fp32"])
        result["targets"] = {
            "int8_encode_ratio": result["encode"]["onnx_int8"]["ratio_vs_torch"],
            "target_int8_encode_ratio": 2.0,
            "fp32_cosine_min": result["encode"]["onnx_fp32"]["cosine_min"],
            "target_fp32_cosine_min": 0.999,
            "int8_questions_lost": result["eval"]["onnx_int8"]["questions_lost_vs_torch"],
            "target_int8_questions_lost": 1,
            "service_peak_rss_ratio": result["serve"]["onnx_fp32"]["peak_rss_ratio_vs_torch"],
            "target_service_peak_rss_ratio": 0.5,
        }
        return result
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
