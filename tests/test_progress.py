"""Progress of long work where no terminal shows a bar: plain lines or JSON lines on stderr."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

from indexer.index import Index
from indexer.progress import ProgressBars, ProgressEvent, ProgressLines
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


def test_json_lines_time_each_stage_and_the_files_apart() -> None:
    out, clock = io.StringIO(), _Clock()
    sink = ProgressLines(out, as_json=True, clock=clock)
    sink(ProgressEvent("a.md", "files", 0, 4))
    sink(ProgressEvent("a.md", "parse", 0, 1))
    clock.now += 1.0
    sink(ProgressEvent("a.md", "parse", 1, 1))
    clock.now += 30.0  # a long summarize stage, reported elsewhere
    sink(ProgressEvent("a.md", "store", 0, 1))
    clock.now += 0.2
    sink(ProgressEvent("a.md", "store", 1, 1))
    sink(ProgressEvent("a.md", "files", 1, 4))
    sink(ProgressEvent("b.md", "parse", 0, 1))
    clock.now += 4.0
    sink(ProgressEvent("b.md", "parse", 1, 1))
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    ends = {(e["doc_id"], e["stage"]): e for e in events if e["done"] == e["total"]}
    assert ends[("a.md", "parse")]["elapsed_s"] == 1.0
    assert ends[("a.md", "store")]["elapsed_s"] == 0.2  # the store step's own time, not the run's
    assert ends[("b.md", "parse")]["elapsed_s"] == 4.0
    files = [e for e in events if e["stage"] == "files"]
    assert [(e["done"], e["total"]) for e in files] == [(0, 4), (1, 4)]
    # one file in 31.2 s: three left at that rate
    assert files[1]["elapsed_s"] == 31.2 and files[1]["eta_s"] == 93.6


def test_terminal_bars_one_per_stage_and_one_for_the_files() -> None:
    out = io.StringIO()
    bars = ProgressBars(out)
    bars(ProgressEvent("a.md", "files", 0, 2))
    bars(ProgressEvent("a.md", "parse", 0, 1))
    bars(ProgressEvent("a.md", "parse", 1, 1))
    parse_bar = bars.stage_bar
    before_store = time.time()
    bars(ProgressEvent("a.md", "store", 0, 1))
    bars(ProgressEvent("a.md", "store", 1, 1))
    store_bar = bars.stage_bar
    bars(ProgressEvent("a.md", "files", 1, 2))
    # the store bar started with the store stage: its rate and elapsed time are the stage's own
    assert store_bar is not parse_bar and store_bar.start_t >= before_store
    assert (store_bar.desc, store_bar.n, store_bar.total) == ("a.md store", 1, 1)
    assert (bars.files_bar.n, bars.files_bar.total, bars.files_bar.unit) == (1, 2, "file")
    assert bars.files_bar.pos == 0 and store_bar.pos in (1, -1)
    bars.close()
    assert "files:  50%" in out.getvalue() and "1/2" in out.getvalue()


def test_an_ingest_of_several_files_reports_the_files(tmp_path: Path, fast_index: Index) -> None:
    for name in ("a.md", "b.md", "c.md"):
        (tmp_path / name).write_text(f"# {name}\n\nSome text about {name}.\n", encoding="utf-8")
    events: list[ProgressEvent] = []
    report = fast_index.ingest_paths([tmp_path], progress=events.append)
    assert report.ok and len(report.documents) == 3
    files = [(e.done, e.total) for e in events if e.stage == "files"]
    assert files == [(0, 3), (1, 3), (2, 3), (3, 3)]
    # each document's stages come between its two files events
    stages = [e.stage for e in events]
    first, second = stages.index("files"), stages.index("files", 1)
    assert {"parse", "store"} <= set(stages[first + 1 : second])
    single: list[ProgressEvent] = []
    fast_index.ingest_paths([tmp_path / "a.md"], progress=single.append)
    assert not [e for e in single if e.stage == "files"]  # one file: no files bar
