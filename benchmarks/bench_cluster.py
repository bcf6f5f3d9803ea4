"""Clustering fallback (issue 3): which backend, which threshold, memory, and what an edit costs.

Sections of the result:

- ``five_topics``: first-level clusters against the 5 topics of ``tests/data/five_topics.jsonl``
  (real MiniLM vectors), per backend and target branching: adjusted Rand index, children found.
- ``synthetic``: 5,000 passages made by perturbing the 60 real vectors (two noise levels), one
  fresh process per backend so that peak RSS is that backend's; ``none`` is the same process
  without clustering (the memory baseline), ``contiguous`` the time baseline.
- ``memory_growth``: peak RSS of the default backend from 1,000 to 20,000 passages.
- ``threshold``: tree shape and summarizer input for several thresholds, plus how many direct
  passages the headed fixture manuals put under one heading.
- ``edits``: summaries recomputed by a one-passage edit or insertion versus the tree size, with the
  previous clusters kept (the default) and with re-clustering from scratch.
- ``end_to_end``: a real ingest of a 5,000-passage headingless document (the synthetic vectors
  served by a stand-in embedder, extractive summarizer) and of one edit of it, in a fresh
  process, default versus contiguous.
"""

from __future__ import annotations

import copy
import json
import multiprocessing as mp
import queue as queue_module
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
TOPICS = ROOT / "tests" / "data" / "five_topics.jsonl"
TRANSCRIPT = ROOT / "fixtures" / "field-service-call.txt"
BACKENDS = ("kmeans", "gmm", "hdbscan", "contiguous")
DEFAULT = "kmeans"
N_SYNTHETIC = 5000
NOISES = (0.03, 0.05)  # per-dimension noise: cosine to the source vector about 0.85 and 0.7
CHUNK_TOKENS = 160  # every topic passage is then exactly one chunk (see tests/test_clustering.py)


# data -------------------------------------------------------------------------------------
def _rows() -> list[dict[str, str]]:
    return [json.loads(line) for line in TOPICS.read_text(encoding="utf-8").splitlines()]


def synthetic(
    n: int, base: np.ndarray, texts: list[str], *, noise: float, seed: int = 0
) -> tuple[np.ndarray, list[str], np.ndarray]:
    """``n`` unit vectors perturbed from ``base`` rows, their texts and their source rows."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, len(base), n)
    x = base[src] + rng.normal(0.0, noise, (n, base.shape[1]))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x.astype(np.float32), [f"{texts[s]} Record {i}." for i, s in enumerate(src)], src


def _flat_tree(texts: list[str]) -> Any:
    from indexer.hashing import hash_text
    from indexer.tree import DOCUMENT, PASSAGE, TreeNode

    root = TreeNode(DOCUMENT, None, [], 0, 0, None)
    pos = 0
    for t in texts:
        p = TreeNode(PASSAGE, None, [], pos, pos + len(t), None, text=t)
        p.hash = hash_text(t)
        root.children.append(p)
        pos += len(t) + 3
    root.char_end = pos
    return root


def _hook(name: str, **kw: Any) -> Any:
    from indexer.clustering import ClusterRestructure, make_clusterer

    return ClusterRestructure(make_clusterer(name), **kw)


def _top_labels(tree: Any) -> dict[str, int]:
    """Passage hash -> index of its first-level cluster."""
    return {p.hash: i for i, c in enumerate(tree.children) for p in c.passages()}


def _shape(tree: Any) -> dict[str, Any]:
    from indexer.tree import summary_depth

    inner = [n for n in tree.walk() if not n.is_passage]
    clusters = [n for n in inner if n.level == "cluster"]
    leaves = [n for n in clusters if any(c.is_passage for c in n.children)]
    inner_kids = [len(n.children) for n in inner if not any(c.is_passage for c in n.children)]
    return {
        "summaries": len(inner),
        "clusters": len(clusters),
        "depth": summary_depth(tree),
        "top_children": len(tree.children),
        "leaf_passages_mean": round(float(np.mean([len(n.children) for n in leaves])), 1)
        if leaves
        else 0,
        "leaf_passages_max": max((len(n.children) for n in leaves), default=0),
        "inner_children_in_5_10": round(
            sum(5 <= k <= 10 for k in inner_kids) / max(len(inner_kids), 1), 3
        ),
    }


# 1. topic recovery on real vectors ---------------------------------------------------------
def _embed_topics(rows: list[dict[str, str]]) -> np.ndarray:
    from indexer.embedding.minilm import MiniLMEmbedder

    return MiniLMEmbedder(threads=2).embed([r["text"] for r in rows])


def _five_topics(rows: list[dict[str, str]], vecs: np.ndarray) -> dict[str, Any]:
    from sklearn.metrics import adjusted_rand_score

    topics = [r["topic"] for r in rows]
    out: dict[str, Any] = {}
    for name in BACKENDS:
        for branching in (6, 8, 10):
            tree = _flat_tree([r["text"] for r in rows])
            order = [p.hash for p in tree.children]
            vectors = dict(zip(order, vecs, strict=True))
            hook = _hook(name, branching=branching)
            started = time.perf_counter()
            hook.restructure(tree, vectors)
            seconds = time.perf_counter() - started
            top = _top_labels(tree)
            found = [top[h] for h in order]
            out[f"{name}/b{branching}"] = {
                "ari": round(float(adjusted_rand_score(topics, found)), 3),
                "children": len(tree.children),
                "seconds": round(seconds, 3),
            }
    return out


# 2. 5,000 passages in a fresh process per backend ------------------------------------------
def _child(queue: Any, name: str, n: int, noise: float, base: np.ndarray, texts: list[str],
           topics: list[str]) -> None:  # fmt: skip
    from sklearn.metrics import adjusted_rand_score

    x, synth_texts, src = synthetic(n, base, texts, noise=noise)
    tree = _flat_tree(synth_texts)
    order = [p.hash for p in tree.children]
    vectors = dict(zip(order, x, strict=True))
    result: dict[str, Any] = {}
    # The baseline imports what the backends import, so the difference is the clustering's.
    import sklearn.cluster  # noqa: F401
    import sklearn.decomposition  # noqa: F401
    import sklearn.metrics  # noqa: F401
    import sklearn.mixture  # noqa: F401

    started = time.perf_counter()
    if name != "none":
        hook = _hook(name)
        hook.restructure(tree, vectors)
        top = _top_labels(tree)
        found = [top[h] for h in order]
        result["ari_topics_first_level"] = round(
            float(adjusted_rand_score([topics[s] for s in src], found)), 3
        )
        result.update(_shape(tree))
        native = getattr(hook.clusterer, "native_clusters", None)
        if native is not None:
            result["hdbscan_native_clusters_last_call"] = native
    result["seconds"] = round(time.perf_counter() - started, 2)
    result["peak_rss_mb"] = peak_rss_mb()
    queue.put(result)


def peak_rss_mb() -> float:
    """This process's peak resident set size in MB.

    ``VmHWM`` rather than ``ru_maxrss``: Linux carries ``ru_maxrss`` over ``exec``, so a freshly
    spawned child would report its parent's peak.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _in_fresh_process(target: Any, *args: Any) -> dict[str, Any]:
    """Run ``target(queue, *args)`` in a new interpreter (its own peak RSS) and return its dict."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(queue, *args))
    proc.start()
    try:
        while True:
            try:
                result: dict[str, Any] = queue.get(timeout=5)
                return result
            except queue_module.Empty:
                if not proc.is_alive():
                    raise RuntimeError(f"benchmark child exited with {proc.exitcode}") from None
    finally:
        proc.join(timeout=60)


def _synthetic(rows: list[dict[str, str]], vecs: np.ndarray) -> dict[str, Any]:
    texts = [r["text"] for r in rows]
    topics = [r["topic"] for r in rows]
    out: dict[str, Any] = {}
    for noise in NOISES:
        runs = {
            name: _in_fresh_process(_child, name, N_SYNTHETIC, noise, vecs, texts, topics)
            for name in ("none", *BACKENDS)
        }
        base_rss = runs["none"]["peak_rss_mb"]
        base_seconds = max(runs["contiguous"]["seconds"], 1e-3)
        for name in BACKENDS:
            runs[name]["rss_over_baseline_mb"] = round(runs[name]["peak_rss_mb"] - base_rss, 1)
            runs[name]["time_vs_contiguous"] = round(runs[name]["seconds"] / base_seconds, 1)
        out[f"noise_{noise}"] = runs
    return out


def _memory_growth(rows: list[dict[str, str]], vecs: np.ndarray) -> dict[str, Any]:
    texts = [r["text"] for r in rows]
    topics = [r["topic"] for r in rows]
    out = {}
    for n in (1000, 5000, 20000):
        base = _in_fresh_process(_child, "none", n, 0.05, vecs, texts, topics)
        run = _in_fresh_process(_child, DEFAULT, n, 0.05, vecs, texts, topics)
        out[str(n)] = {
            "seconds": run["seconds"],
            "peak_rss_mb": run["peak_rss_mb"],
            "rss_over_baseline_mb": round(run["peak_rss_mb"] - base["peak_rss_mb"], 1),
            "summaries": run["summaries"],
            "depth": run["depth"],
        }
    return out


# 3. threshold -------------------------------------------------------------------------------
def _authored_sections() -> dict[str, int]:
    from indexer.parsers import parse_bytes
    from indexer.tree import build_tree

    out = {}
    for path in sorted((ROOT / "fixtures").iterdir()):
        if path.suffix not in (".md", ".html", ".pdf") or path.name == "README.md":
            continue
        doc = parse_bytes(path.read_bytes(), filename=path.name)
        tree = build_tree(doc, chunk_tokens=200, overlap=30)
        out[path.name] = max(
            sum(1 for c in n.children if c.is_passage) for n in tree.walk() if not n.is_passage
        )
    return out


def _transcript_tree() -> Any:
    from indexer.hashing import hash_text
    from indexer.parsers import parse_bytes
    from indexer.tree import build_tree

    doc = parse_bytes(TRANSCRIPT.read_bytes(), filename=TRANSCRIPT.name)
    tree = build_tree(doc, chunk_tokens=200, overlap=30)
    for p in tree.passages():
        p.hash = hash_text(p.text or "")
    return tree


def _thresholds(rows: list[dict[str, str]], vecs: np.ndarray, embedder: Any) -> dict[str, Any]:
    """Tree shape and the largest leaf's summarizer input (tokens) for several thresholds."""
    from indexer.tokens import count_tokens

    x, texts, _ = synthetic(N_SYNTHETIC, vecs, [r["text"] for r in rows], noise=0.05)
    transcript = _transcript_tree()
    t_vectors = dict(
        zip(
            [p.hash for p in transcript.passages()],
            embedder.embed([p.text or "" for p in transcript.passages()]),
            strict=True,
        )
    )
    tokens: dict[str, int] = {}

    def leaf_tokens_max(tree: Any) -> int:
        sizes = [0]
        for n in tree.walk():
            if n.is_passage:
                continue
            own = [c.text or "" for c in n.children if c.is_passage]
            for t in own:
                if t not in tokens:
                    tokens[t] = count_tokens(t)
            sizes.append(sum(tokens[t] for t in own))
        return max(sizes)

    out: dict[str, Any] = {"max_direct_passages_under_an_authored_heading": _authored_sections()}
    for threshold in (12, 16, 24, 32, 48, 64):
        row: dict[str, Any] = {}
        for label, build in (
            ("transcript", lambda: (copy.deepcopy(transcript), t_vectors)),
            ("synthetic_5000", lambda: _synthetic_tree(x, texts)),
        ):
            tree, vectors = build()
            started = time.perf_counter()
            _hook(DEFAULT, threshold=threshold).restructure(tree, vectors)
            row[label] = {
                **_shape(tree),
                "largest_summary_input_tokens": leaf_tokens_max(tree),
                "seconds": round(time.perf_counter() - started, 2),
            }
        out[f"T{threshold}"] = row
    return out


def _synthetic_tree(x: np.ndarray, texts: list[str]) -> tuple[Any, dict[str, np.ndarray]]:
    tree = _flat_tree(texts)
    return tree, {p.hash: v for p, v in zip(tree.children, x, strict=True)}


# 4. what an edit recomputes ---------------------------------------------------------------
def _inner_hashes(tree: Any) -> set[str]:
    return {n.hash for n in tree.walk() if not n.is_passage}


def _edit_costs(name: str, x: np.ndarray, texts: list[str], *, edits: int) -> dict[str, Any]:
    """Summaries an edit recomputes = inner nodes whose Merkle hash is new (the cache key)."""
    from indexer.clustering.reuse import clusters_of
    from indexer.tree import compute_hashes

    def build(ts: list[str], xs: np.ndarray, hook: Any, previous: Any = None) -> Any:
        tree = _flat_tree(ts)
        vectors = {p.hash: v for p, v in zip(tree.children, xs, strict=True)}
        hook.restructure(tree, vectors, previous=previous)
        compute_hashes(tree)
        return tree

    first = build(texts, x, _hook(name))
    before = _inner_hashes(first)
    previous = clusters_of(first)
    rng = np.random.default_rng(7)
    kept, scratch, inserted, inserted_scratch = [], [], [], []
    for i in rng.choice(len(texts), edits, replace=False).tolist():
        ts = list(texts)
        ts[i] = ts[i].replace(" the ", " this ", 1) + " (revised)"
        xs = x.copy()
        xs[i] = xs[i] + rng.normal(0, 0.01, x.shape[1])
        xs[i] /= np.linalg.norm(xs[i])
        tree = build(ts, xs, _hook(name), previous)
        kept.append(len(_inner_hashes(tree) - before))
        tree = build(ts, xs, _hook(name, reuse_max_change=0.0), previous)
        scratch.append(len(_inner_hashes(tree) - before))
        ts = [*texts[: i + 1], texts[i] + " Also checked.", *texts[i + 1 :]]
        xs = np.insert(x, i + 1, xs[i], axis=0)
        tree = build(ts, xs, _hook(name), previous)
        inserted.append(len(_inner_hashes(tree) - before))
        tree = build(ts, xs, _hook(name, reuse_max_change=0.0), previous)
        inserted_scratch.append(len(_inner_hashes(tree) - before))
    return {
        "summaries_in_tree": len(before),
        "depth": _shape(first)["depth"],
        "edit_recomputes_mean": round(float(np.mean(kept)), 1),
        "edit_recomputes_max": max(kept),
        "insert_recomputes_mean": round(float(np.mean(inserted)), 1),
        "edit_recomputes_when_reclustering_mean": round(float(np.mean(scratch)), 1),
        "edit_recomputes_when_reclustering_max": max(scratch),
        "insert_recomputes_when_reclustering_mean": round(float(np.mean(inserted_scratch)), 1),
    }


def _edits(rows: list[dict[str, str]], vecs: np.ndarray) -> dict[str, Any]:
    texts = [r["text"] for r in rows]
    out: dict[str, Any] = {}
    for name in BACKENDS:
        out[f"five_topics/{name}"] = _edit_costs(name, vecs, texts, edits=5)
    x, synth_texts, _ = synthetic(N_SYNTHETIC, vecs, texts, noise=0.05)
    for name in (DEFAULT, "contiguous"):
        out[f"synthetic_{N_SYNTHETIC}/{name}"] = _edit_costs(name, x, synth_texts, edits=3)
    return out


# 5. end to end ------------------------------------------------------------------------------
class _SyntheticEmbedder:
    """Returns the synthetic vector of a passage by its ``Record N`` marker (hashing otherwise).

    Stands in for MiniLM in the end-to-end build: embedding 5,000 passages with the model takes
    about 5 minutes here, and the perturbed real vectors keep the clustering realistic.
    """

    name = "synthetic"

    def __init__(self, x: np.ndarray) -> None:
        from indexer.embedding.hashing import HashingEmbedder

        self.x = x
        self.dim = int(x.shape[1])
        self.fallback = HashingEmbedder(self.dim)

    def embed(self, texts: list[str]) -> np.ndarray:
        import re

        out = self.fallback.embed(texts)
        for row, text in enumerate(texts):
            m = re.search(r"Record (\d+)\.", text)
            if m and int(m.group(1)) < len(self.x):
                out[row] = self.x[int(m.group(1))]
        return out


def _ingest_child(queue: Any, clustering: str, base: np.ndarray, base_texts: list[str]) -> None:
    from indexer.index import Index
    from indexer.settings import Settings

    x, texts, _ = synthetic(N_SYNTHETIC, base, base_texts, noise=0.05)
    with tempfile.TemporaryDirectory() as tmp:
        doc = Path(tmp) / "docs" / "flat.txt"
        doc.parent.mkdir()
        doc.write_text("\n\n\n".join(texts) + "\n", encoding="utf-8")
        settings = Settings.model_validate(
            {
                "store": Path(tmp) / "store",
                "embedder": "hashing",
                "chunk_tokens": CHUNK_TOKENS,
                "clustering": clustering,
            }
        )
        index = Index(settings, embedder=_SyntheticEmbedder(x))
        before_build = peak_rss_mb()
        started = time.perf_counter()
        first = index.ingest_paths([doc.parent])
        build_seconds = time.perf_counter() - started
        after_build = peak_rss_mb()
        d = first.documents[0]
        edited = texts[2500].replace(" the ", " this ", 1)
        doc.write_text("\n\n\n".join([*texts[:2500], edited, *texts[2501:]]) + "\n")
        started = time.perf_counter()
        second = index.ingest_paths([doc.parent])
        queue.put(
            {
                "passages": d.passages,
                "summaries": d.summaries,
                "depth": d.depth,
                "build_seconds": round(build_seconds, 1),
                "edit_summarizer_calls": second.summarizer_calls,
                "edit_seconds": round(time.perf_counter() - started, 1),
                "peak_rss_mb_before_build": before_build,
                "peak_rss_mb_after_build": after_build,
                "peak_rss_mb": peak_rss_mb(),
            }
        )


def _end_to_end(rows: list[dict[str, str]], vecs: np.ndarray) -> dict[str, Any]:
    texts = [r["text"] for r in rows]
    out = {
        name: _in_fresh_process(_ingest_child, name, vecs, texts)
        for name in (DEFAULT, "contiguous")
    }
    out["rss_vs_contiguous"] = round(
        out[DEFAULT]["peak_rss_mb"] / out["contiguous"]["peak_rss_mb"], 2
    )
    out["build_time_vs_contiguous"] = round(
        out[DEFAULT]["build_seconds"] / max(out["contiguous"]["build_seconds"], 1e-3), 2
    )
    return out


def _transcript_edit(embedder: Any) -> dict[str, Any]:
    """The headingless fixture with the real model: an edit, with and without kept clusters."""
    from indexer.index import Index
    from indexer.settings import Settings

    text = TRANSCRIPT.read_text(encoding="utf-8")
    sentence = "It has been dripping for about three weeks"
    assert sentence in text
    out = {}
    for label, reuse in (("kept_clusters", 0.2), ("recluster_from_scratch", 0.0)):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "docs"
            folder.mkdir()
            (folder / TRANSCRIPT.name).write_text(text, encoding="utf-8")
            settings = Settings.model_validate(
                {"store": Path(tmp) / "store", "cluster_reuse_max_change": reuse}
            )
            index = Index(settings, embedder=embedder)
            d = index.ingest_paths([folder]).documents[0]
            edited = text.replace(sentence, sentence.replace("three", "four"))
            (folder / TRANSCRIPT.name).write_text(edited, encoding="utf-8")
            second = index.ingest_paths([folder])
            out[label] = {
                "passages": d.passages,
                "summaries": d.summaries,
                "depth": d.depth,
                "edit_summarizer_calls": second.summarizer_calls,
            }
            index.close()
    return out


def main() -> dict[str, Any]:
    """Run every section; see the module docstring."""
    from indexer.embedding.minilm import MiniLMEmbedder

    rows = _rows()
    embedder = MiniLMEmbedder(threads=2)
    vecs = embedder.embed([r["text"] for r in rows])
    result: dict[str, Any] = {"default": DEFAULT, "baseline": "contiguous"}
    for name, section in (
        ("five_topics", lambda: _five_topics(rows, vecs)),
        ("transcript_edit", lambda: _transcript_edit(embedder)),
        ("edits", lambda: _edits(rows, vecs)),
        ("threshold", lambda: _thresholds(rows, vecs, embedder)),
        ("synthetic", lambda: _synthetic(rows, vecs)),
        ("memory_growth", lambda: _memory_growth(rows, vecs)),
        ("end_to_end", lambda: _end_to_end(rows, vecs)),
    ):
        started = time.perf_counter()
        result[name] = section()
        result[name]["_seconds"] = round(time.perf_counter() - started, 1)
        print(name, json.dumps(result[name]), flush=True)
    return result


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
