"""Overstory side by side with the LlamaIndex RAPTOR pack and auto-merging retrieval
(``make bench-peer``; ``python -m benchmarks.peer.run``).

One run, from nothing: installs ``postgresql-doc-15`` when missing and the peers into their own
virtual environment (``.bench-peer-venv/``, pinned by ``benchmarks/peer/requirements.txt``),
exports the corpus as Overstory's parsers convert it (:mod:`benchmarks.peer.corpus`), builds
Overstory (its real ingest, extractive summaries, MiniLM on ONNX Runtime) and the peers
(:mod:`benchmarks.peer.peers`, the same encoder and summarizer) over the same text, asks the
questions of ``benchmarks/peer/questions.jsonl`` of every system, re-indexes a one-passage edit
and a one-section insertion, and scores everything with :mod:`benchmarks.peer.scoring`.

Writes ``benchmarks/results/peer.json``, ``peer.md`` and ``peer.png``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import FIXTURES, ROOT
from benchmarks.corpora import CACHE
from benchmarks.peer import corpus as pg
from benchmarks.peer import report, scoring

HERE = Path(__file__).resolve().parent
VENV = ROOT / ".bench-peer-venv"
REQUIREMENTS = HERE / "requirements.txt"
QUESTIONS = HERE / "questions.jsonl"
WORK = CACHE / "peer"
PEERS = ("raptor_collapsed", "auto_merging")
PROBES = (
    {
        "id": "edit",
        "question": "What is the default value of shared_buffers?",
        "new": "256 megabytes",
        "old": "128 megabytes",
    },
    {
        "id": "insertion",
        "question": "How often is the memory accounting report written to the server log?",
        "new": "every 90 seconds",
        "old": None,
    },
)


def log(message: str) -> None:
    """Progress on stderr (the run takes minutes)."""
    print(f"[bench-peer {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def peer_venv() -> dict[str, str]:
    """The peers' virtual environment, created or brought up to the pinned versions; returns
    the pinned packages' installed versions."""
    python = VENV / "bin" / "python"
    stamp = VENV / ".requirements-sha256"
    want = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    if not (python.exists() and stamp.exists() and stamp.read_text() == want):
        log(f"installing the peers into {VENV.name}/ (pinned in {REQUIREMENTS.name})")
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*pip, "-r", str(REQUIREMENTS)], check=True)
        stamp.write_text(want)
    frozen = subprocess.run(
        [str(python), "-m", "pip", "freeze"], capture_output=True, text=True, check=True
    ).stdout
    pinned = {
        line.split("==")[0].lower()
        for line in REQUIREMENTS.read_text().splitlines()
        if "==" in line and not line.startswith("#")
    }
    return {
        name: version
        for name, _, version in (line.partition("==") for line in frozen.splitlines())
        if name.lower() in pinned
    }


def load_questions(path: Path) -> list[dict[str, Any]]:
    """The questions file, one JSON object a line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def resolve(questions: list[dict[str, Any]], corpus: dict[str, Any]) -> dict[str, scoring.Section]:
    """Each question's gold section; raises when a gold path or evidence is not in the corpus."""
    found = scoring.sections(corpus)
    passages = {d["doc_id"]: [p["text"] for p in d["passages"]] for d in corpus["documents"]}
    golds, bad = {}, []
    for q in questions:
        gold = q["gold"]
        section = found.get((gold["source"], tuple(gold["heading_path"])))
        if section is None:
            bad.append(f"{q['id']}: no section {gold['heading_path']} in {gold['source']}")
            continue
        want = scoring.normalize(gold.get("evidence") or "")
        texts = passages[gold["source"]]
        if want and not any(want in scoring.normalize(t) for t in texts):
            bad.append(f"{q['id']}: evidence {gold['evidence']!r} is in no passage")
        golds[q["id"]] = section
    if bad:
        raise RuntimeError("questions that do not resolve:\n" + "\n".join(bad))
    return golds


def edited_depth(corpus: dict[str, Any]) -> int:
    """Summaries on the path of the edited passage: the sections above it, the document's too."""
    doc = next(d for d in corpus["documents"] if d["doc_id"].endswith(pg.EDITED_PAGE))
    passage = next(p for p in doc["passages"] if pg.EDIT_NEW in p["text"])
    path = passage["heading_path"]
    return sum(1 for s in doc["sections"] if path[: len(s["heading_path"])] == s["heading_path"])


def corpus_run(name: str, revisions: list[pg.Revision], questions_file: Path) -> dict[str, Any]:
    """Every system over one corpus: build, questions, then each later revision re-indexed."""
    exports = {}
    for rev in revisions:
        exports[rev.name] = WORK / "export" / name / f"{rev.name}.json"
        pg.export(rev.folder, exports[rev.name])
    corpus = json.loads(exports[revisions[0].name].read_text(encoding="utf-8"))
    questions = load_questions(questions_file)
    golds = resolve(questions, corpus)
    n_passages = sum(len(d["passages"]) for d in corpus["documents"])
    log(
        f"{name}: {len(corpus['documents'])} documents, {n_passages} passages, "
        f"{len(questions)} questions"
    )

    from benchmarks.peer import overstory_side

    probes = PROBES if len(revisions) > 1 else ()
    store = WORK / "overstory" / name
    raw = {"overstory": overstory_side.run(revisions, questions, probes, store)}
    raw.update(run_peers(name, exports, [r.name for r in revisions], questions, probes))
    result: dict[str, Any] = {
        "corpus": {
            "documents": len(corpus["documents"]),
            "passages": n_passages,
            "characters": sum(len(d["text"]) for d in corpus["documents"]),
        },
        "questions": {"file": str(questions_file.relative_to(ROOT)), "n": len(questions)},
        "systems": {s: report.system(raw[s], questions, golds, probes) for s in raw},
    }
    if "edit" in exports:
        edited = json.loads(exports["edit"].read_text(encoding="utf-8"))
        result["edited_passage_depth"] = edited_depth(edited)
    return result


def main() -> dict[str, Any]:
    """Run everything: the manual with its revisions, then the fixtures (retrieval only)."""
    versions = peer_venv()
    log(f"peers: {versions}")
    manual = corpus_run("postgresql", pg.revisions(), QUESTIONS)
    manual["corpus"]["package"] = pg.PACKAGE
    fixtures = [pg.Revision("original", FIXTURES)]
    out = {
        "peer_versions": versions,
        "postgresql": manual,
        "fixtures": corpus_run("fixtures", fixtures, FIXTURES / "questions.jsonl"),
    }
    if os.environ.get("BENCH_PEER_SMALL_MODEL", "1") != "0":
        out["small_model"] = small_model_run()
    return out


def small_model_run() -> dict[str, Any]:
    """One small page summarized by the bundled SmolLM2 GGUF on both summarizing sides."""
    from benchmarks.peer import small_model

    def run_peer(folder: Path, llm: dict[str, Any]) -> dict[str, Any]:
        path = WORK / "export" / "small-model.json"
        pg.export(folder, path)
        return run_peers(
            "small-model", {"original": path}, ["original"], [], (), systems=PEERS[:1], llm=llm
        )

    log("small model: the SmolLM2 GGUF on one page, Overstory then the RAPTOR pack")
    return small_model.run(WORK / "small-model", pg.HTML, run_peer)


def run_peers(
    name: str,
    exports: dict[str, Path],
    order: list[str],
    questions: list[dict[str, Any]],
    probes: tuple[dict[str, Any], ...],
    *,
    systems: tuple[str, ...] = PEERS,
    llm: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The peers in their own environment (one process, the same job); ``llm`` points the
    RAPTOR pack at a served model instead of the extractive summarizer."""
    from indexer.embedding.onnx_export import default_dir, ensure
    from indexer.settings import Settings

    settings = Settings(store=WORK / "unused-store")
    onnx = settings.onnx_dir or default_dir()
    ensure(onnx, "fp32")
    job = {
        "corpora": {rev: str(path) for rev, path in exports.items()},
        "order": order,
        "rebuild": order[1:],
        "questions": [{"id": q["id"], "question": q["question"]} for q in questions],
        "probes": [{"id": p["id"], "question": p["question"]} for p in probes],
        "systems": list(systems),
        "llm": llm,
        "onnx_dir": str(onnx),
        "ingest_threads": settings.ingest_threads,
        "query_threads": settings.torch_threads,
    }
    job_path, out_path = WORK / f"job-{name}.json", WORK / f"peers-{name}.json"
    job_path.write_text(json.dumps(job), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TOKENIZERS_PARALLELISM": "false"}
    log(f"{name}: running the peers")
    python = str(VENV / "bin" / "python")
    subprocess.run(
        [python, "-m", "benchmarks.peer.peers", str(job_path), str(out_path)],
        check=True,
        cwd=ROOT,
        env=env,
    )
    out: dict[str, Any] = json.loads(out_path.read_text(encoding="utf-8"))
    return out


def write(result: dict[str, Any]) -> None:
    """JSON, the Markdown table and the plot under ``benchmarks/results/``."""
    results = ROOT / "benchmarks" / "results"
    (results / "peer.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    (results / "peer.md").write_text(report.markdown(result), encoding="utf-8")
    subprocess.run(
        [
            str(VENV / "bin" / "python"),
            "-m",
            "benchmarks.peer.plot",
            str(results / "peer.json"),
            str(results / "peer.png"),
        ],
        check=True,
        cwd=ROOT,
    )


if __name__ == "__main__":
    started = time.perf_counter()
    out = main()
    out["wall_seconds"] = round(time.perf_counter() - started, 1)
    write(out)
    shutil.rmtree(WORK / "overstory", ignore_errors=True)
    log(f"done in {out['wall_seconds']:.0f} s: benchmarks/results/peer.md")
