"""Build time of real manuals with the sourced-sentence summarizer against the summarizer before
it, in one run: ``python -m benchmarks.run summary_build``.

The baseline is the code at :data:`BASELINE` (the last commit before the rework), checked out
into a temporary git worktree and run from there with this environment's packages; the current
code is this checkout. Each side ingests the same files into a fresh store in its own process
(model load included, the default encoder), the two sides alternating :data:`ROUNDS` times so
that the machine's load falls on both alike. The figure is the ratio of the medians; the
summary pass's own share is reported beside it (the ingest's progress events time each stage).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT
from benchmarks.summaries.manuals import MANUALS, prepared

BASELINE = "eba5acf"
ROUNDS = 3
NAMES = ("bash", "debian-reference", "libtasn1", "docker")

# Run in a child process: ingest the folder, print the wall seconds of the whole build, of its
# summarize stage, and of every stage (each interval between two progress events counted to the
# stage of the later one; before the first event is "start", after the last "finish").
_CHILD = """
import json, sys, time
from pathlib import Path
from indexer.index import Index
from indexer.settings import Settings
log = []
def progress(event):
    log.append((time.perf_counter(), event.doc_id, event.stage))
started = time.perf_counter()
index = Index(Settings(store=Path(sys.argv[1])))
report = index.ingest_paths([Path(p) for p in sys.argv[2:]], progress=progress)
seconds = time.perf_counter() - started
summarize = 0.0
for doc in {d for _, d, _ in log}:
    events = [(t, s) for t, d, s in log if d == doc]
    ends = [t for t, s in events if s == "summarize"]
    if ends:
        before = [t for t, s in events if t < ends[0] and s != "summarize"]
        summarize += ends[-1] - (before[-1] if before else ends[0])
stages = {"start": log[0][0] - started if log else seconds}
for (t0, _, _), (t1, _, stage) in zip(log, log[1:]):
    stages[stage] = stages.get(stage, 0.0) + t1 - t0
stages["finish"] = started + seconds - log[-1][0] if log else 0.0
print(json.dumps({"seconds": seconds, "summarize": summarize, "errors": len(report.errors),
                  "passages": sum(d.passages for d in report.documents),
                  "stages": {k: round(v, 2) for k, v in stages.items()}}))
"""


def _run(code_root: Path, files: list[Path], store: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(code_root), "HF_HUB_OFFLINE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(store), *map(str, files)],
        capture_output=True,
        text=True,
        env=env,
        cwd=code_root,
        check=True,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> dict[str, Any]:
    folders = []
    for manual in MANUALS:
        if manual.name in NAMES:
            prepared(manual)
            folders.append(manual.folder())
    with tempfile.TemporaryDirectory(prefix="summary-build-") as tmp:
        base = Path(tmp) / "baseline"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(base), BASELINE],
            check=True,
        )
        try:
            runs: dict[str, list[dict[str, Any]]] = {"baseline": [], "current": []}
            for i in range(ROUNDS):
                for side, root in (("baseline", base), ("current", ROOT)):
                    runs[side].append(_run(root, folders, Path(tmp) / f"{side}-{i}"))
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False
            )
    median = {s: statistics.median(r["seconds"] for r in rs) for s, rs in runs.items()}
    summarize = {s: statistics.median(r["summarize"] for r in rs) for s, rs in runs.items()}
    return {
        "manuals": list(NAMES),
        "baseline_commit": BASELINE,
        "rounds": ROUNDS,
        "passages": {s: rs[0]["passages"] for s, rs in runs.items()},
        "build_seconds_median": {s: round(v, 2) for s, v in median.items()},
        "build_ratio": round(median["current"] / median["baseline"], 3),
        "summarize_stage_seconds_median": {s: round(v, 2) for s, v in summarize.items()},
        "stage_seconds_median": {
            s: {
                k: round(statistics.median(r["stages"].get(k, 0.0) for r in rs), 2)
                for k in rs[0]["stages"]
            }
            for s, rs in runs.items()
        },
        "runs": runs,
    }
