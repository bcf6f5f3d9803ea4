"""Progress of long work where no terminal shows a bar: plain lines or JSON lines on stderr."""

from __future__ import annotations

import io
import json
from pathlib import Path

from indexer.progress import ProgressEvent, ProgressLines
from tests.helpers import run_cli

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_plain_lines_are_throttled_and_carry_rate_and_eta() -> None:
    out, clock = io.StringIO(), _Clock()
    sink = ProgressLines(out, interval=5.0, clock=clock)
    sink(ProgressEvent("m.pdf", "embed", 0, 100))
    for done in range(10, 100, 10):
        clock.now += 1.0
        sink(ProgressEvent("m.pdf", "embed", done, 100))
    clock.now += 1.0
    sink(ProgressEvent("m.pdf", "embed", 100, 100))
    lines = out.getvalue().splitlines()
    # the start, one line per 5 s in between, and the end
    assert lines[0].startswith("m.pdf embed 0/100")
    assert lines[1] == "m.pdf embed 50/100 10.0/s eta 5s elapsed 5s"
    assert lines[-1] == "m.pdf embed 100/100 10.0/s elapsed 10s"
    assert len(lines) == 3


def test_json_lines() -> None:
    out, clock = io.StringIO(), _Clock()
    sink = ProgressLines(out, as_json=True, clock=clock)
    sink(ProgressEvent("a.md", "parse", 0, 1))
    clock.now += 2.0
    sink(ProgressEvent("a.md", "parse", 1, 1))
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    got = [(e["stage"], e["done"], e["total"]) for e in events]
    assert got == [("parse", 0, 1), ("parse", 1, 1)]
    assert events[1]["rate"] == 0.5 and events[1]["elapsed_s"] == 2.0


def test_cli_ingest_reports_progress_on_stderr_when_it_is_not_a_terminal(tmp_path: Path) -> None:
    env = {"OVERSTORY_EMBEDDER": "hashing"}
    src = FIXTURES / "pump-x200.md"
    _, _, plain = run_cli("ingest", str(src), "--store", str(tmp_path / "a"), env=env)
    stages = {line.split()[1] for line in plain.splitlines() if line.startswith("pump-x200.md ")}
    assert {"parse", "embed", "summarize", "store"} <= stages
    _, report, err = run_cli("ingest", str(src), "--store", str(tmp_path / "b"), "--json", env=env)
    assert report["documents"][0]["doc_id"] == "pump-x200.md"  # stdout stays one JSON document
    events = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert events and all(e["event"] == "progress" for e in events)
    assert events[-1] == {**events[-1], "stage": "store", "done": 1, "total": 1}
