"""Issue 2: ingest, revisions, the summary cache, bad input and crash recovery."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from indexer.index import Index
from indexer.settings import Settings
from indexer.summarizers.extractive import ExtractiveSummarizer
from tests.helpers import ROOT, run_cli, walk

HASHING = {"OVERSTORY_EMBEDDER": "hashing"}


def _tree(index: Index, doc_id: str) -> dict:
    return index.tree(doc_id)


def test_reingest_unchanged_is_free(fast_index: Index, fixtures_copy: Path) -> None:
    first = fast_index.ingest_paths([fixtures_copy])
    assert first.ok, first.errors
    assert {d.status for d in first.documents} == {"new"}
    assert first.summarizer_calls > 0 and first.embedded > 0
    second = fast_index.ingest_paths([fixtures_copy])
    assert [d.status for d in second.documents] == ["unchanged"] * len(first.documents)
    assert second.summarizer_calls == 0
    assert second.embedded == 0
    assert [d.nodes for d in second.documents] == [d.nodes for d in first.documents]


def test_a_new_reader_reads_unchanged_bytes_again(
    fast_index: Index, fixtures_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An upgrade whose parsers read the same file differently must not keep serving the old
    # parse: the served build records which reader made it.
    first = fast_index.ingest_paths([fixtures_copy])
    assert first.ok, first.errors
    monkeypatch.setattr("indexer.ingest.reader_fingerprint", lambda: "another reader")
    second = fast_index.ingest_paths([fixtures_copy])
    assert [d.status for d in second.documents] == ["changed"] * len(first.documents)
    # Nothing the new reader leaves the same is computed again: summaries and vectors are kept
    # by the hash of their text.
    assert second.summarizer_calls == 0 and second.embedded == 0
    third = fast_index.ingest_paths([fixtures_copy])
    assert [d.status for d in third.documents] == ["unchanged"] * len(first.documents)


def _ancestors(root: dict, target_id: str) -> list[dict]:
    path: list[dict] = []

    def visit(node: dict) -> bool:
        if node["node_id"] == target_id:
            return True
        path.append(node)
        if any(visit(c) for c in node["children"]):
            return True
        path.pop()
        return False

    assert visit(root)
    return path


def test_one_sentence_edit_recomputes_exactly_its_path(
    fast_index: Index, fixtures_copy: Path
) -> None:
    fast_index.ingest_paths([fixtures_copy])
    doc = "pump-x200.md"
    before = _tree(fast_index, doc)
    source = (fixtures_copy / doc).read_text(encoding="utf-8")
    # The deepest passage whose first sentence occurs once in the file.
    candidates = sorted(
        (n for n in walk(before) if n["level"] == "passage"),
        key=lambda n: -len(n["heading_path"]),
    )
    for passage in candidates:
        sentence = passage["text"].split(". ")[0]
        if len(sentence) > 30 and source.count(sentence) == 1:
            break
    else:
        pytest.fail("no passage with a unique first sentence")
    ancestors = _ancestors(before, passage["node_id"])
    d = len(ancestors)
    assert d >= 3
    (fixtures_copy / doc).write_text(
        source.replace(sentence, sentence.replace(" ", " very ", 1)), encoding="utf-8"
    )

    report = fast_index.ingest_paths([fixtures_copy])
    by_id = {r.doc_id: r for r in report.documents}
    assert by_id[doc].status == "changed"
    assert report.summarizer_calls == d
    assert (
        report.cache_hits
        == sum(r.summaries for r in report.documents if r.status != "unchanged") - d
    )

    after = _tree(fast_index, doc)
    old_hashes = {n["hash"] for n in walk(before)}
    changed = [n for n in walk(after) if n["hash"] not in old_hashes]
    changed_inner = [n for n in changed if n["level"] != "passage"]
    assert sorted(n["heading_path"] for n in changed_inner) == sorted(
        a["heading_path"] for a in ancestors
    )
    changed_passages = [n for n in changed if n["level"] == "passage"]
    assert 1 <= len(changed_passages) <= 2
    assert all(n["heading_path"] == passage["heading_path"] for n in changed_passages)


def test_prompt_version_change_recomputes_everything(
    fast_settings: Settings, fixtures_copy: Path
) -> None:
    md = fixtures_copy / "pump-x200.md"
    v1 = Index(fast_settings, summarizer=ExtractiveSummarizer(prompt_version="v1"))
    first = v1.ingest_paths([md])
    total = first.documents[0].summaries
    v2 = Index(fast_settings, summarizer=ExtractiveSummarizer(prompt_version="v2"))
    second = v2.ingest_paths([md])
    assert second.summarizer_calls == total
    assert second.cache_hits == 0
    tree = v2.tree(md.name)
    assert {n["summarizer"]["prompt_version"] for n in walk(tree) if n["summary"]} == {"v2"}
    back = Index(fast_settings, summarizer=ExtractiveSummarizer(prompt_version="v1"))
    third = back.ingest_paths([md])
    assert third.summarizer_calls == 0 and third.cache_hits == total


def test_every_node_points_at_its_text(fixtures_index: Index) -> None:
    docs = {d["doc_id"]: d for d in fixtures_index.documents()}
    assert {"pump-x200.md", "netgate-ng40.html"} <= set(docs)
    for doc_id in docs:
        tree = fixtures_index.tree(doc_id)
        build = fixtures_index.catalog.require_document(doc_id)["current_build"]
        text = fixtures_index.catalog.build_text(build)
        for node in walk(tree):
            assert 0 <= node["char_start"] <= node["char_end"] <= len(text)
            assert isinstance(node["heading_path"], list)
            if node["level"] == "passage":
                assert text[node["char_start"] : node["char_end"]] == node["text"]
                assert node["text"].strip()
            elif node["level"] in ("chapter", "section"):
                assert node["heading_path"][-1] == node["title"]
                head = " ".join(text[node["char_start"] : node["char_start"] + 400].split())
                assert " ".join(node["title"].split()) in head
                assert node["summary"], node["heading_path"]
                assert node["summarizer"]["backend"] == "extractive"
            for child in node["children"]:
                assert node["char_start"] <= child["char_start"]
                assert child["char_end"] <= node["char_end"]


def test_passages_fit_the_embedding_window(fixtures_index: Index) -> None:
    from indexer.tokens import count_tokens

    sizes = []
    for doc in fixtures_index.documents():
        for node in walk(fixtures_index.tree(doc["doc_id"])):
            if node["level"] == "passage":
                sizes.append(count_tokens(node["text"]))
    assert max(sizes) <= 254
    long = [s for s in sizes if s >= 120]
    assert len(long) > len(sizes) / 3


def _bad_inputs(folder: Path) -> None:
    folder.mkdir()
    (folder / "good.md").write_text("# Good\n\n## 1 Part\n\nThe valve opens at 3 bar.\n")
    (folder / "empty.md").write_bytes(b"")
    (folder / "binary.md").write_bytes(bytes(range(256)) * 40)
    (folder / "corrupt.pdf").write_bytes(b"%PDF-1.7\n1 0 obj <<>> garbage\n%%EOF")
    with open(folder / "huge.txt", "wb") as fh:
        line = b"The pump shall be inspected every 500 operating hours by a technician.\n"
        fh.write(line * (50 * 1024 * 1024 // len(line) + 1))
    deep = "".join(
        f"{'.'.join(['1'] * level)} Level {level} heading\n\nText at level {level} of the tree.\n\n"
        for level in range(1, 13)
    )
    (folder / "deep.txt").write_text(deep)
    (folder / "mixed.txt").write_bytes(
        "Caf\u00e9 pressure 3 bar\n".encode() + "Temp\u00e9rature 40 \u00b0C\n".encode("cp1252")
    )


def test_bad_input_is_reported_and_loses_nothing(tmp_path: Path, fixtures_copy: Path) -> None:
    store = str(tmp_path / "store")
    run_cli("ingest", str(fixtures_copy / "pump-x200.md"), "--store", store, "--json", env=HASHING)
    _, before, _ = run_cli("docs", "--store", store, "--json", env=HASHING)
    bad = tmp_path / "bad"
    _bad_inputs(bad)
    code, report, stderr = run_cli(
        "ingest", str(bad), "--store", store, "--json", env=HASHING, check=False
    )
    assert code == 1
    failed = {e["doc_id"]: e for e in report["errors"]}
    assert set(failed) == {"empty.md", "binary.md", "corrupt.pdf", "huge.txt"}
    assert failed["huge.txt"]["code"] == "too_large"
    assert "empty" in failed["empty.md"]["message"]
    assert "binary" in failed["binary.md"]["message"].lower()
    assert failed["corrupt.pdf"]["code"] == "parse_error"
    ok = {d["doc_id"]: d for d in report["documents"]}
    assert set(ok) == {"good.md", "deep.txt", "mixed.txt"}
    assert ok["deep.txt"]["depth"] >= 12
    _, tree, _ = run_cli("tree", "mixed.txt", "--store", store, "--json", env=HASHING)
    text = " ".join(n["text"] or "" for n in walk(tree))
    assert "Caf\u00e9" in text and "Temp\u00e9rature" in text and "\ufffd" not in text
    _, after, _ = run_cli("docs", "--store", store, "--json", env=HASHING)
    kept = {d["doc_id"]: d["revision"] for d in after["documents"]}
    for d in before["documents"]:
        assert kept[d["doc_id"]] == d["revision"]
    code, check, _ = run_cli("doctor", "--store", store, "--json", env=HASHING)
    assert check["consistent"]


def _big_manual(path: Path, sections: int = 240) -> None:
    parts = ["# Big Manual\n"]
    for c in range(1, sections // 8 + 1):
        parts.append(f"\n## {c} Chapter {c}\n\nChapter {c} explains assembly group {c}.\n")
        for s in range(1, 9):
            parts.append(
                f"\n### {c}.{s} Section {c}.{s}\n\n"
                + " ".join(
                    f"Step {i}: tighten bolt M{c}-{s}-{i} to {10 + i} N·m unless the gasket "
                    f"is older than {i} years, in which case replace gasket G{c}{s}{i} first."
                    for i in range(1, 25)
                )
                + "\n"
            )
    path.write_text("".join(parts), encoding="utf-8")


def test_sigkill_mid_ingest_then_rerun_reuses_work(tmp_path: Path) -> None:
    manual = tmp_path / "big.md"
    _big_manual(manual)
    store = tmp_path / "store"
    env = {**os.environ, **HASHING, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "ingest", str(manual), "--store", str(store)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    db = store / "overstory.db"
    done_before_kill = 0
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        if db.exists():
            try:
                with sqlite3.connect(db, timeout=1) as conn:
                    done_before_kill = conn.execute("SELECT COUNT(*) FROM summaries").fetchone()[0]
            except sqlite3.Error:
                done_before_kill = 0
            if done_before_kill > 0:
                break
        time.sleep(0.02)
    assert proc.poll() is None, "ingest finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with sqlite3.connect(db) as conn:
        done_before_kill = conn.execute("SELECT COUNT(*) FROM summaries").fetchone()[0]
        served = conn.execute(
            "SELECT COUNT(*) FROM documents WHERE current_build IS NOT NULL"
        ).fetchone()[0]
    assert done_before_kill > 0
    assert served == 0  # nothing half-built is ever served

    _, report, _ = run_cli("ingest", str(manual), "--store", str(store), "--json", env=HASHING)
    doc = report["documents"][0]
    assert doc["status"] == "new"
    assert report["cache_hits"] >= done_before_kill
    assert report["summarizer_calls"] + report["cache_hits"] == doc["summaries"]
    _, check, _ = run_cli("doctor", "--store", str(store), "--json", env=HASHING)
    assert check["consistent"], check
