"""Start-up cost of the ``overstory`` command, each figure against ``python -c pass``.

Two stores are made in a temporary folder: the fixtures ingested with the hashing embedder (for
``docs --json`` and a query that loads no model) and one fixture manual with the default
all-MiniLM-L6-v2 encoder (for a cold query that loads the real encoder). Then, round-robin so
that the machine's load falls on all alike, each of these runs in a fresh interpreter
``REPEATS`` times: ``python -c pass``, ``overstory --version``, ``overstory docs --json``,
``overstory query`` on either store. Reported: the medians, the ratios to ``python -c pass``
and the targets: ``--version`` and ``docs --json`` within 1.5× ``python -c pass`` + 0.3 s, a
cold query with the real encoder within 2 s (on a quiet machine).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import FIXTURES, ROOT

REPEATS = 5
QUESTION = "What is the impeller clearance?"
QUICK_FACTOR = 1.5
QUICK_SLACK_S = 0.3
QUERY_TARGET_S = 2.0


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OVERSTORY_")}
    path = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return {**env, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", **extra}


def _run(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[3:]} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return seconds


def _stores(folder: Path) -> tuple[Path, Path]:
    """The hashing store of every fixture and the MiniLM store of one (ingested by the CLI)."""
    cli = [sys.executable, "-m", "api.cli"]
    hashing, minilm = folder / "hashing", folder / "minilm"
    _run([*cli, "ingest", str(FIXTURES), "--store", str(hashing), "--json"],
         _env(OVERSTORY_EMBEDDER="hashing"))  # fmt: skip
    _run([*cli, "ingest", str(FIXTURES / "pump-x200.md"), "--store", str(minilm), "--json"],
         _env())  # fmt: skip
    return hashing, minilm


def _commands(hashing: Path, minilm: Path) -> dict[str, tuple[list[str], dict[str, str]]]:
    cli = [sys.executable, "-m", "api.cli"]
    return {
        "python_pass": ([sys.executable, "-c", "pass"], _env()),
        "version": ([*cli, "--version"], _env()),
        "docs_json": ([*cli, "docs", "--json", "--store", str(hashing)], _env()),
        "query_hashing": (
            [*cli, "query", QUESTION, "--store", str(hashing)],
            _env(OVERSTORY_EMBEDDER="hashing"),
        ),
        "query_minilm": ([*cli, "query", QUESTION, "--store", str(minilm)], _env()),
    }


def main() -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="overstory-startup-") as tmp:
        hashing, minilm = _stores(Path(tmp))
        commands = _commands(hashing, minilm)
        times: dict[str, list[float]] = {name: [] for name in commands}
        load_before = os.getloadavg()[0]
        for _ in range(REPEATS):
            for name, (argv, env) in commands.items():
                times[name].append(_run(argv, env))
        load_after = os.getloadavg()[0]
    medians = {name: round(statistics.median(ts), 3) for name, ts in times.items()}
    floor = medians["python_pass"]
    quick_limit = round(QUICK_FACTOR * floor + QUICK_SLACK_S, 3)
    return {
        "repeats": REPEATS,
        "load_average": [round(load_before, 2), round(load_after, 2)],
        "seconds": {name: [round(t, 3) for t in ts] for name, ts in times.items()},
        "median_s": medians,
        "ratio_to_python_pass": {
            name: round(m / floor, 2) for name, m in medians.items() if name != "python_pass"
        },
        "quick_limit_s": quick_limit,
        "query_target_s": QUERY_TARGET_S,
        "met": {
            "version": medians["version"] <= quick_limit,
            "docs_json": medians["docs_json"] <= quick_limit,
            "query_minilm": medians["query_minilm"] <= QUERY_TARGET_S,
        },
    }
