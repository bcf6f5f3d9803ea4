"""The retriever on small manuals with the hashing embedder: format, provenance, options, bad
queries, revisions and the persisted BM25 index."""

from __future__ import annotations

import asyncio
import gc
import os
import shutil
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from indexer.errors import InvalidRequestError, NotFoundError
from indexer.index import Index
from indexer.settings import Settings
from indexer.summarizers.base import SummaryRequest, SummaryResult
from indexer.summarizers.extractive import ExtractiveSummarizer
from retriever.postings import Postings
from retriever.retriever import Retriever
from retriever.snapshot import take_snapshot
from retriever.tokenize import tokenize

pytestmark = pytest.mark.backends

RESULT_KEYS = {
    "rank", "node_id", "kind", "level", "score", "text", "doc_id", "source", "revision",
    "heading_path", "char_start", "char_end", "pages", "covers", "label", "summarizer", "review",
    "sentences",
}  # fmt: skip


def manual(torque: str = "95 N·m", extra: str = "") -> bytes:
    """A small pump manual in Markdown: chapters, sections, codes and values."""
    return f"""# PX-9 Pump Manual

This manual covers installation, maintenance and troubleshooting of the PX-9 pump.

## 1 Installation

Install the pump on a rigid, level foundation. Grout the baseplate before connecting pipes.

### 1.1 Alignment

Align the coupling with a dial indicator. The maximum parallel offset is 0.05 mm at 2,950 rpm.

### 1.2 Piping

Support the suction and discharge piping independently of the pump casing.

## 2 Maintenance

Maintenance keeps the pump reliable. Follow the schedule and record every task.

### 2.1 Seal replacement

Replace the mechanical seal with kit PX-2010-A. Set the working length to 42.5 mm.
Tighten the seal cover nuts to 35 N·m in a cross pattern.

### 2.2 Impeller

Tighten the impeller nut to {torque} with thread locker. {extra}

## 3 Troubleshooting

Error code E-17 means motor power below 30 % of rated for 20 seconds: the pump ran dry.
Error code E-22 means the bearing temperature exceeded 90 °C.
""".encode()


def other_manual() -> bytes:
    return b"""# Fan Manual

## 1 Fans

The fan blade is balanced at the factory. Clean the blades every 500 hours.

## 2 Belts

Check belt tension monthly. Replace cracked belts.
"""


@pytest.fixture
def index(fast_settings: Settings) -> Iterator[Index]:
    idx = Index(fast_settings)
    idx.ingest_bytes(manual(), doc_id="pump.md")
    idx.ingest_bytes(other_manual(), doc_id="fan.md")
    yield idx
    idx.close()


@pytest.fixture
def retriever(index: Index) -> Retriever:
    return Retriever(index)


def ask(retriever: Retriever, query: str, **options: Any) -> dict[str, Any]:
    return retriever.query(retriever.request(query, **options)).to_json()


# tokens and BM25 -----------------------------------------------------------------------------
def test_tokenizer_keeps_codes_whole_and_in_parts() -> None:
    tokens = tokenize("The display shows E-17; order kit PX-2010-A, 42.5 mm at 2,950 rpm.")
    assert {"e-17", "17", "px-2010-a", "2010", "42.5", "2950", "rpm"} <= set(tokens)
    assert "the" not in tokens


def test_tokenizer_stems_inflections_alike() -> None:
    assert len({tokenize(w)[0] for w in ("lubricate", "lubricated", "lubrication")}) == 1
    assert tokenize("bearings") == tokenize("bearing")


def _bm25_pair(corpus: list[str]) -> tuple[Any, Any, dict[str, int]]:
    """Postings and bm25s's own index over the same tokenized corpus."""
    import bm25s

    docs = [tokenize(c) for c in corpus]
    vocab: dict[str, int] = {}
    for d in docs:
        for t in d:
            vocab.setdefault(t, len(vocab))
    bags = [Counter(vocab[t] for t in d) for d in docs]
    ours = Postings()
    ours.index_pairs(
        docs=np.repeat(np.arange(len(docs)), [len(b) for b in bags]),
        tokens=np.array([t for b in bags for t in b]),
        counts=np.array([c for b in bags for c in b.values()]),
        lengths=np.array([len(d) for d in docs]),
        vocab=vocab,
    )
    ref = bm25s.BM25()
    ref.index(([[vocab[t] for t in d] for d in docs], vocab), create_empty_token=False,
              show_progress=False)  # fmt: skip
    return ours, ref, vocab


_BM25_CORPUS = [
    "replace the mechanical seal with kit PX-2010-A",
    "impeller nut torque 95 N·m",
    "error E-17 motor power low, the pump ran dry",
    "seal seal seal leak",
]


def test_vectorized_bm25_matches_bm25s() -> None:
    ours, ref, vocab = _bm25_pair(_BM25_CORPUS)
    for query in ("seal kit", "e-17 pump", "torque"):
        ids = [vocab[t] for t in tokenize(query) if t in vocab]
        expected = ref.get_scores_from_ids(ids)
        assert np.allclose(ours.scores_of(ids), expected)
        # bm25s's public ranking: the same documents with the same scores
        top, top_scores = ref.retrieve([ids], k=len(_BM25_CORPUS), show_progress=False)
        assert np.allclose(ours.scores_of(ids)[top[0]], top_scores[0])
        assert top_scores[0].max() > 0


@pytest.mark.parametrize("size", [500, 20_000])
def test_best_rows_are_a_full_sort_with_ties_in_row_order(size: int) -> None:
    """The sampled bound never changes the selection: every kind's rows are exactly the full
    sort's, whether the bound prunes (few best of many rows) or falls back (n near the size)."""
    from retriever.best_rows import best_rows

    rng = np.random.default_rng(3)
    for scores in (
        rng.integers(0, 6, size=size).astype(np.float64),  # many ties, many zeros
        np.where(rng.random(size) < 0.3, rng.random(size), 0.0),  # distinct, mostly zero
    ):
        summary = rng.random(size) < 0.3
        few = rng.random(size) < 0.01  # a kind with a handful of rows (a restricted query)
        masks = {"all": None, "summary": summary, "passage": ~summary, "few": few}
        for n in (1, 7, 40, 1000):
            got = best_rows(scores, masks, n)
            for key, mask in masks.items():
                rows = [i for i in range(size) if scores[i] > 0 and (mask is None or mask[i])]
                expected = sorted(rows, key=lambda i: (-scores[i], i))[:n]
                assert got[key][0].tolist() == expected
                assert got[key][1].tolist() == [scores[i] for i in expected]


def test_lexical_search_kinds_lists_each_kind_as_a_search_of_that_kind_alone(
    retriever: Retriever,
) -> None:
    snapshot = retriever.snapshots.take()
    builds = snapshot.builds()
    kinds = frozenset({"passage", "summary"})
    lexical = retriever.lexical
    for query in ("seal kit", "pump pressure torque", "E-17"):
        both = lexical.search_kinds(query, n=7, snapshot=snapshot, builds=builds, kinds=kinds)
        assert both["passage"] and both["summary"]
        for kind in kinds:
            alone = lexical.search(
                query, n=7, snapshot=snapshot, builds=builds, kinds=frozenset({kind})
            )
            assert both[kind] == alone


def test_postings_files_are_read_both_ways_with_bm25s(tmp_path: Path) -> None:
    """An index saved before (by bm25s) still loads, and bm25s reads what Postings saves."""
    import bm25s

    ours, ref, vocab = _bm25_pair(_BM25_CORPUS)
    ours.save(tmp_path / "ours")
    ref.save(str(tmp_path / "ref"), show_progress=False)
    theirs_of_ours = bm25s.BM25.load(str(tmp_path / "ours"), show_progress=False)
    ours_of_theirs = Postings.load(tmp_path / "ref")
    assert ours_of_theirs.vocab_dict == theirs_of_ours.vocab_dict == vocab
    for query in ("seal kit", "e-17 pump", "torque"):
        ids = [vocab[t] for t in tokenize(query) if t in vocab]
        expected = ref.get_scores_from_ids(ids)
        assert np.allclose(theirs_of_ours.get_scores_from_ids(ids), expected)
        assert np.allclose(ours_of_theirs.scores_of(ids), expected)


# results and provenance ------------------------------------------------------------------------
def test_result_format_labels_and_provenance(retriever: Retriever, index: Index) -> None:
    out = ask(retriever, "seal replacement kit working length", k=10)
    assert out["query"] == "seal replacement kit working length"
    assert [r["rank"] for r in out["results"]] == list(range(1, len(out["results"]) + 1))
    kinds = {r["kind"] for r in out["results"]}
    assert kinds == {"passage", "summary"}
    for r in out["results"]:
        assert set(r) == RESULT_KEYS
        doc = index.catalog.require_document(r["doc_id"])
        assert r["revision"] == doc["revision"] and r["source"] == doc["source"]
        text = index.catalog.build_text(int(doc["current_build"]))
        assert r["pages"] is None  # Markdown has no pages
        if r["kind"] == "passage":
            assert r["label"] == "quote" and r["covers"] is None and r["level"] == "passage"
            assert text[r["char_start"] : r["char_end"]] == r["text"]
        else:
            assert r["label"].startswith("summary of ") and r["level"] != "passage"
            assert r["summarizer"].startswith("extractive/")
            covered = [r["covers"]["first"], r["covers"]["last"]]
            assert r["covers"]["passages"] >= 1
            for node_id in covered:
                node = index.catalog.node(node_id)
                assert node is not None and node["level"] == "passage"
                assert node["build_id"] == doc["current_build"]
                assert r["char_start"] <= node["char_start"] < node["char_end"] <= r["char_end"]


def test_exact_code_is_found_by_bm25(retriever: Retriever) -> None:
    out = ask(retriever, "E-22", k=3, kinds=["passage"])
    assert "E-22" in out["results"][0]["text"]
    out = ask(retriever, "PX-2010-A", k=3, kinds=["passage"])
    assert "PX-2010-A" in out["results"][0]["text"]


def test_restrict_documents_and_kinds(retriever: Retriever) -> None:
    only_fan = ask(retriever, "seal maintenance", k=10, documents=["fan.md"])
    assert only_fan["results"] and {r["doc_id"] for r in only_fan["results"]} == {"fan.md"}
    summaries = ask(retriever, "seal maintenance", k=10, kinds=["summary"])
    assert summaries["results"] and {r["kind"] for r in summaries["results"]} == {"summary"}
    passages = ask(retriever, "seal maintenance", k=10, kinds=["passage"], documents=["pump.md"])
    assert {(r["kind"], r["doc_id"]) for r in passages["results"]} == {("passage", "pump.md")}


def test_expand_gives_summaries_their_best_passages(retriever: Retriever, index: Index) -> None:
    out = ask(retriever, "maintenance seal impeller", k=5, kinds=["summary"], expand=True)
    assert out["results"]
    for r in out["results"]:
        support = r["support"]
        assert 1 <= len(support) <= 3
        assert [s["score"] for s in support] == sorted((s["score"] for s in support), reverse=True)
        for s in support:
            assert s["kind"] == "passage" and s["label"] == "quote" and s["rank"] is None
            assert s["doc_id"] == r["doc_id"]
            assert r["char_start"] <= s["char_start"] < s["char_end"] <= r["char_end"]
            assert s["heading_path"][: len(r["heading_path"])] == r["heading_path"]
    plain = ask(retriever, "maintenance seal impeller", k=5)
    assert all("support" not in r for r in plain["results"])


def test_k_cuts_the_list(retriever: Retriever) -> None:
    assert len(ask(retriever, "pump", k=1)["results"]) == 1
    assert len(ask(retriever, "pump", k=7)["results"]) == 7


def test_first_answer_freezes_what_the_process_loaded(
    retriever: Retriever, monkeypatch: pytest.MonkeyPatch
) -> None:
    from retriever import heap

    gc.unfreeze()
    monkeypatch.setattr(heap, "_settled", False)
    assert gc.get_freeze_count() == 0
    ask(retriever, "pump")
    frozen = gc.get_freeze_count()
    assert frozen > 1000  # the encoder, the indexes and this test's objects
    ask(retriever, "seal")
    # once per process, not per query (frozen objects that die leave the count)
    assert gc.get_freeze_count() <= frozen


def test_caches_that_grew_are_frozen_again_after_a_young_collection(
    retriever: Retriever, monkeypatch: pytest.MonkeyPatch
) -> None:
    from retriever import heap

    ask(retriever, "pump")  # settled
    gc.unfreeze()
    monkeypatch.setattr(heap, "_grown", 0)
    ask(retriever, "seal")
    assert gc.get_freeze_count() == 0  # the caches did not grow enough: nothing frozen
    young = gc.get_stats()[1]["collections"]
    heap.kept(heap.FREEZE_EVERY)
    ask(retriever, "impeller")
    assert gc.get_freeze_count() > 1000
    assert gc.get_stats()[1]["collections"] > young
    assert heap._grown == 0


# bad queries -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("query", "options", "message"),
    [
        ("", {}, "empty"),
        ("   \n ", {}, "empty"),
        ("x" * 100_000, {}, "characters long"),
        ("seal\x00\x01\x02", {}, "control characters"),
        ("\udc80seal", {}, "invalid text"),
        (b"seal", {}, "must be a string"),
        ("seal", {"k": 0}, "between 1 and"),
        ("seal", {"k": 10_000}, "between 1 and"),
        ("seal", {"k": True}, "integer"),
        ("seal", {"k": "5"}, "integer"),
        ("seal", {"kinds": ["quote"]}, "unknown kind"),
        ("seal", {"kinds": []}, "non-empty"),
        ("seal", {"documents": []}, "empty"),
        ("seal", {"documents": "pump.md"}, "list"),
        ("seal", {"intent": "guess"}, "intent"),
        ("seal", {"intent": 1}, "intent"),
        ("seal", {"kind": ["passage"]}, "kind"),
    ],
)
def test_bad_requests_are_clear_errors(
    retriever: Retriever, query: object, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidRequestError, match=message) as info:
        retriever.request(query, **options)
    assert info.value.status == 422


def test_unknown_document_is_not_found(retriever: Retriever) -> None:
    with pytest.raises(NotFoundError, match="nope.md") as info:
        ask(retriever, "seal", documents=["pump.md", "nope.md"])
    assert info.value.status == 404


def test_empty_index_answers_nothing(fast_index: Index) -> None:
    assert ask(Retriever(fast_index), "seal")["results"] == []


# revisions ---------------------------------------------------------------------------------
class GatedSummarizer(ExtractiveSummarizer):
    """The offline summarizer, which can be made to wait inside a build (an ingest in flight)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate: threading.Event | None = None
        self.entered = threading.Event()

    async def summarize(self, requests: Sequence[SummaryRequest]) -> list[SummaryResult]:
        if self.gate is not None:
            self.entered.set()
            await asyncio.get_running_loop().run_in_executor(None, self.gate.wait, 60)
        return await super().summarize(requests)


def test_query_during_ingest_sees_previous_revision_only(fast_settings: Settings) -> None:
    summarizer = GatedSummarizer()
    index = Index(fast_settings, summarizer=summarizer)
    old = index.ingest_bytes(manual(torque="95 N·m"), doc_id="pump.md").documents[0].revision
    retriever = Retriever(index)
    query = "impeller nut torque 120 N·m thread locker quickly"
    before = ask(retriever, query, k=20)

    summarizer.gate = threading.Event()
    new_text = manual(torque="120 N·m", extra="Check the impeller nut quickly after 120 hours.")
    worker = threading.Thread(
        target=index.ingest_bytes, args=(new_text,), kwargs={"doc_id": "pump.md"}
    )
    worker.start()
    try:
        assert summarizer.entered.wait(60)  # new passages are embedded and in Chroma now
        during = ask(retriever, query, k=20)
    finally:
        summarizer.gate.set()
        worker.join(120)
    assert {r["revision"] for r in during["results"]} == {old}
    assert not any("120" in r["text"] for r in during["results"])
    assert [r["node_id"] for r in during["results"]] == [r["node_id"] for r in before["results"]]

    after = ask(retriever, query, k=20)
    new = index.catalog.require_document("pump.md")["revision"]
    assert new != old and {r["revision"] for r in after["results"]} == {new}
    assert any("120 N·m" in r["text"] for r in after["results"])


def test_a_query_on_an_old_snapshot_never_mixes_revisions(
    retriever: Retriever, index: Index
) -> None:
    snapshot = take_snapshot(index.catalog)
    old_build = snapshot.documents["pump.md"].build_id
    index.ingest_bytes(manual(torque="120 N·m"), doc_id="pump.md")
    request = retriever.request("impeller nut torque", k=20, documents=["pump.md"])
    vector = retriever.embedder.embed([request.query])[0]
    ranked = retriever.rank(request, vector, snapshot, pipeline=retriever.pipeline).candidates
    assert ranked and {c.node.build_id for c in ranked} <= {old_build}


def test_deleted_document_disappears(retriever: Retriever, index: Index) -> None:
    assert any(r["doc_id"] == "fan.md" for r in ask(retriever, "fan blades belts", k=10)["results"])
    index.delete("fan.md")
    assert all(r["doc_id"] != "fan.md" for r in ask(retriever, "fan blades belts", k=10)["results"])


# the persisted BM25 index ------------------------------------------------------------------
def test_bm25_index_is_persisted_and_updated_per_document(
    retriever: Retriever, index: Index, fast_settings: Settings
) -> None:
    ask(retriever, "seal")
    folder = fast_settings.store / "lexical"
    assert (folder / "CURRENT").is_file()
    segments = {p.name: p.stat().st_mtime_ns for p in (folder / "segments-2").glob("*.npz")}
    assert len(segments) == 2

    # Another process (a new Retriever on the same store) loads it instead of rebuilding.
    other = Retriever(Index(fast_settings))
    assert ask(other, "E-22", kinds=["passage"])["results"][0]["text"].count("E-22") == 1
    assert {p.name: p.stat().st_mtime_ns for p in (folder / "segments-2").glob("*.npz")} == segments

    # A new revision of one document re-tokenizes that document only.
    index.ingest_bytes(manual(extra="Inspect the volute for cavitation pitting."), doc_id="pump.md")
    after = {p.name: p.stat().st_mtime_ns for p in (folder / "segments-2").glob("*.npz")}
    fan_build = str(index.catalog.require_document("fan.md")["current_build"]) + ".npz"
    assert after[fan_build] == segments[fan_build]
    assert len(after) == 2  # the old revision's segment was dropped
    hit = ask(retriever, "cavitation pitting", kinds=["passage"])["results"][0]
    assert "cavitation" in hit["text"]


def test_bm25_finds_a_passage_by_its_headings_not_by_the_title(tmp_path: Path) -> None:
    """An FAQ's answer does not restate its question: its heading does."""
    index = Index(Settings(store=tmp_path / "store", embedder="hashing"))
    (tmp_path / "faq.md").write_text(
        "# Chat Client FAQ\n\n## Display\n\n### How to show the buffer list on the left side?\n\n"
        "Run the command below and restart.\n\n### Why do colours look wrong?\n\n"
        "Your terminal supports 8 colours only; set TERM accordingly.\n"
    )
    assert index.ingest_paths([tmp_path / "faq.md"]).ok
    lexical = Retriever(index).lexical
    snapshot = take_snapshot(index.catalog)
    passages = frozenset({"passage"})

    def found(query: str) -> list[str]:
        hits = lexical.search(query, n=5, snapshot=snapshot, builds=snapshot.builds(),
                              kinds=passages)  # fmt: skip
        rows = {r["node_id"]: r for r in index.catalog.nodes.rows(n for n, _ in hits)}
        return [rows[node_id]["text"] for node_id, _ in hits]

    assert found("buffer list left side")[0].startswith("Run the command below")
    assert found("chat client") == []  # the title is every passage's: it finds none
    index.close()


def test_an_earlier_formats_segments_are_tokenized_again(
    retriever: Retriever, fast_settings: Settings
) -> None:
    ask(retriever, "seal")
    folder = fast_settings.store / "lexical"
    stale = folder / "segments"  # where the format before headings kept them
    stale.mkdir()
    (stale / "1.npz").write_bytes(b"old")
    os.utime(stale, (0.0, 0.0))
    for p in folder.glob("index-*"):
        shutil.rmtree(p)
    fresh = Retriever(Index(fast_settings))
    assert ask(fresh, "Maintenance seal replacement", kinds=["passage"])["results"]
    assert not stale.exists()  # swept once the new format's index is published


def test_lexical_index_rebuilt_when_files_are_lost(
    retriever: Retriever, fast_settings: Settings
) -> None:
    import shutil

    ask(retriever, "seal")
    shutil.rmtree(fast_settings.store / "lexical")
    fresh = Retriever(Index(fast_settings))
    assert "E-17" in ask(fresh, "E-17", kinds=["passage"])["results"][0]["text"]


def test_a_sweep_passes_over_lexical_folders_that_vanish_under_it(tmp_path: Any) -> None:
    # A concurrent publish renames its .tmp- folder (or a concurrent sweep removes an old index)
    # between the sweep's listing and its look at the folder's age: that once failed an ingest.
    import os
    import time

    from retriever.lexical import _STALE_INDEX_SECONDS, _stale

    old = tmp_path / ".tmp-old"
    old.mkdir()
    past = time.time() - _STALE_INDEX_SECONDS - 10
    os.utime(old, (past, past))
    fresh = tmp_path / ".tmp-fresh"
    fresh.mkdir()
    assert _stale(old) and not _stale(fresh)
    assert _stale(tmp_path / ".tmp-renamed-meanwhile") is False


def test_threads_share_a_snapshot_until_the_served_builds_change(tmp_path: Path) -> None:
    from retriever.snapshot import SnapshotSource

    index = Index(Settings(store=tmp_path / "store", embedder="hashing"))
    (tmp_path / "a.md").write_text("# Pump\n\nThe impeller clearance is 0.3 mm.\n")
    assert index.ingest_paths([tmp_path / "a.md"]).ok
    source = SnapshotSource(index.catalog)
    seen: list[object] = []
    worker = threading.Thread(target=lambda: seen.append(source.take()))
    worker.start()
    worker.join()
    first = source.take()
    assert seen == [first]  # the same object: read once for both threads
    (tmp_path / "b.md").write_text("# Valve\n\nClose the valve before service.\n")
    assert index.ingest_paths([tmp_path / "b.md"]).ok
    second = source.take()
    assert second is not first
    assert set(second.documents) == set(first.documents) | {"b.md"} != set(first.documents)
    assert second.generation == take_snapshot(index.catalog).generation
    index.close()
