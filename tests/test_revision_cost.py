"""A revision costs what changed: the pages of a manual whose bytes did not change are not parsed
again, the sections whose text did not change are not chunked again, and the result is the same
as a build from scratch; the ingest report says where the time went, stage by stage."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import indexer.manual
import indexer.parsers.pdf
import indexer.reuse
from indexer.index import Index
from indexer.settings import Settings
from tests.helpers import ROOT, run_cli

CHAPTERS = {
    f"{n:02d}-chapter.md": f"# Chapter {n}\n\n"
    + "\n\n".join(
        f"## Part {n}.{k}\n\nThe valve {n}.{k} opens at {10 * n + k} bar. " * 3 for k in range(4)
    )
    for n in range(1, 5)
}


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[Any]:
    calls: list[Any] = []
    real: Callable[..., Any] = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[0] if args else None)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def _manual(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in CHAPTERS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _index(store: Path) -> Index:
    return Index(Settings(store=store, embedder="hashing", clustering="off"))


def _passages(index: Index, doc_id: str) -> list[str]:
    rows = index.documents()
    assert [r["doc_id"] for r in rows] == [doc_id]
    out: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        if node["level"] == "passage":
            out.append(node["text"])
        for child in node["children"]:
            walk(child)

    walk(index.tree(doc_id))
    return out


def test_unchanged_pages_are_not_parsed_or_chunked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _manual(tmp_path / "manual")
    index = _index(tmp_path / "store")
    parses = _counting(monkeypatch, indexer.manual, "parse_bytes")
    chunks = _counting(monkeypatch, indexer.reuse, "chunk_spans")
    first = index.ingest_paths([folder], manual=True)
    assert [d.status for d in first.documents] == ["new"]
    assert len(parses) == len(CHAPTERS)
    chunked_first = len(chunks)

    parses.clear()
    chunks.clear()
    again = index.ingest_paths([folder], manual=True)
    assert [d.status for d in again.documents] == ["unchanged"]
    assert parses == [] and chunks == []

    edited = CHAPTERS["03-chapter.md"].replace("opens at 32 bar", "opens at 33 bar")
    (folder / "03-chapter.md").write_text(edited, encoding="utf-8")
    revised = index.ingest_paths([folder], manual=True)
    assert [d.status for d in revised.documents] == ["changed"]
    assert len(parses) == 1  # the edited page only
    assert 1 <= len(chunks) < chunked_first  # its changed section only (and the joins around)

    # Reused parses and passages build the same tree as a store that never saw revision 1.
    fresh = _index(tmp_path / "fresh")
    fresh.ingest_paths([folder], manual=True)
    assert _passages(index, "manual") == _passages(fresh, "manual")
    index.close()
    fresh.close()


def test_ingest_json_says_where_the_time_went(tmp_path: Path) -> None:
    store = tmp_path / "store"
    args = ("ingest", str(ROOT / "fixtures" / "pump-x200.md"), "--store", str(store), "--json")
    _, report, _ = run_cli(*args, env={"OVERSTORY_EMBEDDER": "hashing"})
    stages = report["stages"]
    for stage in ("open", "read", "parse", "chunk", "embed", "summarize", "store", "publish"):
        assert stage in stages and stages[stage] >= 0, stage
    assert sum(stages.values()) == pytest.approx(report["seconds"], abs=0.05)
    _, again, _ = run_cli(*args, env={"OVERSTORY_EMBEDDER": "hashing"})
    assert [d["status"] for d in again["documents"]] == ["unchanged"]
    assert "parse" not in again["stages"] and "read" in again["stages"]


def _pump_pdf(folder: Path, *, torque: str) -> bytes:
    from tests.pdfgen import build_pdf

    src = (ROOT / "fixtures" / "pump-x200.md").read_text(encoding="utf-8")
    assert "95 N·m" in src
    path = folder / f"pump-{torque}.pdf"
    build_pdf(src.replace("95 N·m", f"{torque} N·m", 1), path)
    return path.read_bytes()


def test_a_pdf_revision_reads_only_its_changed_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = _pump_pdf(tmp_path, torque="95"), _pump_pdf(tmp_path, torque="110")
    assert first != second
    pages = _counting(monkeypatch, indexer.parsers.pdf, "read_page")
    index = _index(tmp_path / "store")
    index.ingest_bytes(first, doc_id="pump.pdf")
    read_first = len(pages)
    assert read_first >= 3

    pages.clear()
    report = index.ingest_bytes(second, doc_id="pump.pdf")
    assert [d.status for d in report.documents] == ["changed"]
    assert 1 <= len(pages) < read_first  # the page holding the edit (and any it reflowed)

    # The reused pages make the same document as a store that never saw revision 1.
    fresh = _index(tmp_path / "fresh")
    fresh.ingest_bytes(second, doc_id="pump.pdf")
    assert _passages(index, "pump.pdf") == _passages(fresh, "pump.pdf")
    assert any("nut to 110 N·m" in " ".join(p.split()) for p in _passages(index, "pump.pdf"))
    index.close()
    fresh.close()


def test_an_accepted_upload_is_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from api.service.jobs import JobRunner

    data = _pump_pdf(tmp_path, torque="95")
    pages = _counting(monkeypatch, indexer.parsers.pdf, "read_page")
    index = _index(tmp_path / "store")
    runner = JobRunner(index)
    upload = runner.save_upload(iter([data]))
    job = runner.submit(upload, doc_id="pump.pdf", filename="pump.pdf")
    read_at_submit = len(pages)
    assert read_at_submit >= 3  # the upload is checked by parsing it
    claimed = runner.store.claim(runner.worker, lease_seconds=60, max_running=1)
    assert claimed is not None and claimed.job_id == job.job_id
    runner.run(job.job_id)
    done = runner.store.get(job.job_id)
    assert done.status == "done", done.error
    assert len(pages) == read_at_submit  # the job read the accepted parse back
    assert any("nut to 95 N·m" in " ".join(p.split()) for p in _passages(index, "pump.pdf"))
    index.close()
