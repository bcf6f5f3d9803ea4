"""The corpus suite (``make test-corpus``): real manuals from Debian packages, indexed once.

Installs the packages it needs with apt-get when missing (as root; otherwise every test is
skipped with the command to run), ingests each manual into one store with the real encoder
and the default (extractive) summarizer, and writes what it measured to
``benchmarks/results/corpus.json`` at the end of the session.
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from benchmarks.corpora import CorpusUnavailable, install_packages
from indexer.index import Index
from indexer.settings import Settings
from tests.corpus.manuals import MANUALS, CorpusManual

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "corpus.json"


@dataclass
class Corpus:
    """The indexed corpus and what the suite recorded about it."""

    index: Index
    built: dict[str, dict[str, Any]] = field(default_factory=dict)
    results: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.perf_counter)


def _ingest(index: Index, m: CorpusManual) -> dict[str, Any]:
    paths = [Path(p) for p in m.paths]
    how: dict[str, Any] = {"manual": True, "doc_id": m.doc_id} if m.manual else {}
    plan_started = time.perf_counter()
    plan = index.plan_paths(paths, **how)
    plan_seconds = time.perf_counter() - plan_started
    started = time.perf_counter()
    report = index.ingest_paths(paths, **how)
    seconds = time.perf_counter() - started
    if not report.ok:
        raise RuntimeError(f"{m.name}: ingest failed: {report.errors}")
    doc = report.documents[0]
    return {
        "doc_id": doc.doc_id,
        "passages": doc.passages,
        "summaries": doc.summaries,
        "nodes": doc.nodes,
        "build_seconds": round(seconds, 2),
        "dry_run_seconds": round(plan_seconds, 2),
        "dry_run_share": round(plan_seconds / seconds, 4) if seconds else None,
        "dry_run_summaries": plan.documents[0].summaries_computed if plan.documents else None,
        "build_summaries_computed": report.summarizer_calls,
        "skipped": [s["reason"] for s in report.skipped],
    }


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    """Every corpus manual ingested into one store (real MiniLM, extractive summaries)."""
    try:
        install_packages({m.package for m in MANUALS})
    except CorpusUnavailable as exc:
        pytest.skip(f"corpus suite skipped: {exc}")
    missing = [p for m in MANUALS for p in m.paths if not Path(p).exists()]
    if missing:
        pytest.skip(f"corpus suite skipped: installed packages lack {missing}")
    store = tmp_path_factory.mktemp("corpus-store")
    index = Index(Settings(store=store))
    corpus = Corpus(index)
    for m in MANUALS:
        corpus.built[m.name] = _ingest(index, m)
    yield corpus
    corpus.results["suite_seconds"] = round(time.perf_counter() - corpus.started, 1)
    _write(corpus)
    index.close()


def _write(corpus: Corpus) -> None:
    out = {
        "benchmark": "corpus",
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "manuals": corpus.built,
        **corpus.results,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n", encoding="utf-8")
