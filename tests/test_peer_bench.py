"""The peer benchmark's parts that can be checked without the peers: its questions, the one
scorer every system is judged by, and the revisions it re-indexes (with the real ingest)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from benchmarks.peer import corpus as pg
from benchmarks.peer import scoring
from benchmarks.peer.run import QUESTIONS, edited_depth, load_questions, resolve
from indexer.index import Index
from indexer.settings import Settings


def test_questions_are_half_global_half_specific_and_split_once() -> None:
    questions = load_questions(QUESTIONS)
    assert len(questions) >= 60
    kinds = Counter(q["kind"] for q in questions)
    assert kinds["global"] == kinds["specific"]
    assert len({q["id"] for q in questions}) == len(questions)
    for kind in ("global", "specific"):
        splits = Counter(q["split"] for q in questions if q["kind"] == kind)
        assert set(splits) == {"tune", "heldout"} and abs(splits["tune"] - splits["heldout"]) <= 1
    for q in questions:
        assert q["gold"]["source"].startswith(f"{pg.FOLDER}/") and q["gold"]["heading_path"]
        evidence = q["gold"]["evidence"]
        assert (bool(evidence) == (q["kind"] == "specific")) and len(evidence) <= 80


def _corpus() -> dict[str, Any]:
    text = "x" * 1000
    return {
        "documents": [
            {
                "doc_id": "d",
                "text": text,
                "sections": [
                    {
                        "heading_path": ["A"],
                        "char_start": 0,
                        "char_end": 1000,
                        "children": [["A", "B"], ["A", "C"]],
                    },
                    {"heading_path": ["A", "B"], "char_start": 0, "char_end": 500, "children": []},
                    {
                        "heading_path": ["A", "C"],
                        "char_start": 500,
                        "char_end": 1000,
                        "children": [],
                    },
                ],
                "passages": [],
            }
        ]
    }


def _result(spans: list[list[int]], *, source: bool = True, text: str = "") -> dict[str, Any]:
    return {"spans": {"d": spans}, "source_text": source, "text": text}


def test_a_specific_hit_needs_source_text_with_the_evidence() -> None:
    gold = scoring.sections(_corpus())[("d", ("A", "B"))]
    q = {"kind": "specific", "gold": {"evidence": "The default is  FIVE minutes"}}
    summary = _result([[0, 500]], source=False, text="the default is five minutes")
    other = _result([[0, 200]], text="the default is one minute")
    quote = _result([[0, 200]], text="... The default is five\nminutes (5min).")
    assert scoring.score(q, gold, [summary, other, quote])["rank"] == 3
    assert scoring.score(q, gold, [summary, other])["rank"] is None


def test_a_global_hit_is_a_result_standing_for_the_gold_section() -> None:
    found = scoring.sections(_corpus())
    q = {"kind": "global", "gold": {"evidence": ""}}
    section_b = found[("d", ("A", "B"))]
    whole = _result([[0, 1000]], source=False)
    most_of_b = _result([[0, 150], [200, 480]], source=False)  # a cluster of B's passages
    one_passage = _result([[0, 200]])
    assert scoring.score(q, section_b, [whole, one_passage, most_of_b])["rank"] == 3
    assert scoring.score(q, found[("d", ("A",))], [one_passage, whole])["rank"] == 2


def test_coverage_counts_the_child_sections_reached() -> None:
    found = scoring.sections(_corpus())
    top = found[("d", ("A",))]
    inside_b = _result([[10, 300]])
    sliver_into_c = _result([[300, 520]])  # 20 characters of C: not a real part of it
    assert scoring.coverage(top, [inside_b, sliver_into_c]) == 0.5
    assert scoring.coverage(top, [_result([[0, 1000]], source=False)]) == 1.0
    assert scoring.coverage(top, [_result([[300, 980]])]) == 1.0
    leaf = found[("d", ("A", "C"))]  # no children: the section itself is the unit
    assert scoring.coverage(leaf, [_result([[900, 950]])]) == 1.0
    assert (
        scoring.coverage(leaf, [{"spans": {"other": [[0, 999]]}, "source_text": True, "text": ""}])
        == 0.0
    )


def test_figures_are_per_split_and_kind() -> None:
    found = scoring.sections(_corpus())
    questions = [
        {"id": "g", "kind": "global", "split": "heldout", "gold": {"evidence": ""}},
        {"id": "s", "kind": "specific", "split": "tune", "gold": {"evidence": "needle"}},
    ]
    golds = {"g": found[("d", ("A",))], "s": found[("d", ("A", "B"))]}
    rankings = {"g": [_result([[0, 10]]), _result([[0, 1000]], source=False)], "s": []}
    out = scoring.evaluate(questions, golds, rankings)
    assert out["all"]["global"] == {
        "n": 1,
        "hit@1": 0.0,
        "hit@5": 1.0,
        "mrr@10": 0.5,
        "coverage@5": 1.0,
    }
    assert out["heldout"]["global"]["n"] == 1 and out["heldout"]["specific"]["n"] == 0
    assert out["tune"]["specific"]["hit@5"] == 0.0


needs_manual = pytest.mark.skipif(
    not (pg.HTML / pg.EDITED_PAGE).exists(), reason="postgresql-doc-15 is not installed"
)


@needs_manual
def test_every_question_resolves_in_the_exported_manual(tmp_path: Path) -> None:
    original, edit, insertion = pg.revisions(tmp_path / "docs")
    corpus = pg.export(original.folder, tmp_path / "original.json")
    assert json.loads((tmp_path / "original.json").read_text())["documents"]
    golds = resolve(load_questions(QUESTIONS), corpus)
    assert len(golds) == len(load_questions(QUESTIONS))
    assert edited_depth(pg.export(edit.folder, tmp_path / "edit.json")) == 2
    inserted = pg.export(insertion.folder, tmp_path / "insertion.json")
    titles = {s["heading_path"][-1] for d in inserted["documents"] for s in d["sections"]}
    assert pg.INSERTED_TITLE in titles


@needs_manual
def test_the_edit_costs_the_summaries_on_its_path_only(tmp_path: Path) -> None:
    revisions = pg.revisions(tmp_path / "docs")
    manual = tmp_path / "manual"
    manual.mkdir()
    index = Index(Settings(store=tmp_path / "store", embedder="hashing"))
    calls = []
    try:
        for rev in revisions:  # the same file revised in place, as a pipeline would
            (manual / pg.EDITED_PAGE).write_bytes(
                (rev.folder / pg.FOLDER / pg.EDITED_PAGE).read_bytes()
            )
            report = index.ingest_paths([manual])
            assert not report.errors
            calls.append(report.summarizer_calls)
    finally:
        index.close()
    # the page's summaries; then 20.4.1 Memory and the document; then the new section too
    assert calls[0] > 3 and calls[1:] == [2, 3]
