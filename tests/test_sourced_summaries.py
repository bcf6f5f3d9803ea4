"""Summaries as sourced sentences: every sentence's spans slice the document and support it,
through the cache, moves and edits, for every backend a test can run, and for every consumer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from indexer.index import Index
from indexer.settings import Settings
from indexer.summarizers.base import ChildSummary, SummaryRequest
from indexer.summarizers.extractive import ExtractiveSummarizer
from indexer.summarizers.support import support
from indexer.summarizers.units import units_of
from tests.fake_openai_server import FakeOpenAIServer
from tests.helpers import walk

VALVE = """# Valve V-10 Service Note

This note covers inspection and reassembly of the V-10 valve.

## 1 Inspection

Inspect the valve seat every 500 operating hours. Replace the O-ring 12-345 if the leak rate
exceeds 0.5 l/h. Do not reuse a flattened O-ring.

## 2 Reassembly

Reassembly restores the valve after inspection.

### 2.1 Bolts

Tighten the four M8 bolts to 25 N·m in a cross pattern. Only when the gasket is new may you use
28 N·m.

### 2.2 Test

Pressurise to 6 bar for 10 minutes unless the valve is rated below 6 bar. No visible leak is
allowed.
"""


def _summaries(index: Index, doc_id: str) -> list[dict[str, Any]]:
    return [n for n in walk(index.tree(doc_id)) if n["level"] != "passage" and n["summary"]]


def _text(index: Index, doc_id: str) -> str:
    catalog = index.catalog
    return catalog.build_text(catalog.current_build(doc_id))


def assert_sourced(index: Index, doc_id: str) -> int:
    """Every sentence of every summary has spans that slice the document's text, and a verified
    sentence is supported by what its spans hold; the number of sentences checked."""
    text = _text(index, doc_id)
    checked = 0
    for node in _summaries(index, doc_id):
        assert node["sentences"], node["heading_path"]
        for sentence in node["sentences"]:
            assert sentence["spans"], (node["heading_path"], sentence["text"])
            sliced = []
            for span in sentence["spans"]:
                start, end = span["char_start"], span["char_end"]
                assert 0 <= start < end <= len(text)
                sliced.append(text[start:end])
            if sentence["verified"]:
                found = support(sentence["text"], " ".join(sliced))
                assert found.supported, (sentence["text"], sliced, found)
            checked += 1
    return checked


@pytest.fixture
def valve(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "valve.md").write_text(VALVE, encoding="utf-8")
    return folder


def test_every_fixture_summary_sentence_has_spans_that_support_it(fixtures_index: Index) -> None:
    checked = sum(assert_sourced(fixtures_index, d["doc_id"]) for d in fixtures_index.documents())
    assert checked > 100


def test_spans_stay_right_when_the_text_before_a_section_changes(
    tmp_path: Path, valve: Path
) -> None:
    index = Index(Settings(store=tmp_path / "store", embedder="hashing"))
    index.ingest_paths([valve])
    before = {tuple(n["heading_path"]): n for n in _summaries(index, "valve.md")}
    path = valve / "valve.md"
    # A longer opening moves every later section; their summaries come from the cache.
    path.write_text(
        VALVE.replace("This note covers", "This service note, issue 3, covers"), encoding="utf-8"
    )
    report = index.ingest_paths([valve])
    after = {tuple(n["heading_path"]): n for n in _summaries(index, "valve.md")}
    bolts = ("Valve V-10 Service Note", "2 Reassembly", "2.1 Bolts")
    assert after[bolts]["summary"] == before[bolts]["summary"]
    shift = len("This service note, issue 3, covers") - len("This note covers")
    old = [s["char_start"] for x in before[bolts]["sentences"] for s in x["spans"]]
    new = [s["char_start"] for x in after[bolts]["sentences"] for s in x["spans"]]
    assert new == [o + shift for o in old]
    assert report.summarizer_calls == 1  # the document's summary only: its own text changed
    assert_sourced(index, "valve.md")
    index.close()


def test_a_whitespace_edit_keeps_the_hash_but_rebuilds_the_spans_on_its_path(
    tmp_path: Path, valve: Path
) -> None:
    index = Index(Settings(store=tmp_path / "store", embedder="hashing"))
    index.ingest_paths([valve])
    path = valve / "valve.md"
    path.write_text(VALVE.replace("four M8 bolts", "four  M8   bolts"), encoding="utf-8")
    report = index.ingest_paths([valve])
    # 2.1 Bolts, 2 Reassembly and the document: the text their spans point into moved.
    assert report.summarizer_calls == 3
    assert_sourced(index, "valve.md")
    index.close()


def test_the_openai_backend_cites_and_its_citations_are_checked(
    tmp_path: Path, valve: Path
) -> None:
    with FakeOpenAIServer() as server:
        settings = Settings(
            store=tmp_path / "store",
            embedder="hashing",
            summarizer="openai",
            summarizer_base_url=server.base_url,
            summarizer_model="fake-a",
        )
        index = Index(settings)
        report = index.ingest_paths([valve])
        assert report.ok
        prompts = [s.user for s in server.seen]
        assert any("[1] Inspect the valve seat every 500 operating hours." in p for p in prompts)
    assert assert_sourced(index, "valve.md") >= 5
    sentences = [s for n in _summaries(index, "valve.md") for s in n["sentences"]]
    assert all(s["verified"] for s in sentences)  # the fake cites the line it copies
    index.close()


def test_a_sentence_is_quoted_with_what_it_leans_on_or_not_at_all() -> None:
    text = (
        "The ground rules are:\n\n- Send at the lowest rate.\n\n- Keep the guard time.\n\n"
        "Compatibility macros are provided. Disabling them is possible. That would allow software"
        " to use both libraries.\n\n"
        "The following modes are supported: This feature is currently experimental.\n\n"
        "The key part of the file looks like:\n\n    load_video\n    insmod gzio\n\n"
        "blank\n\nA space or tab character.\n\n"
        "However, the default is 8 s."
    )
    units = [u.text for u in units_of([(0, text)])]
    assert "The ground rules are: Send at the lowest rate; Keep the guard time." in units
    # "That" is the disabling: never quoted without the sentence it points back at.
    assert not any(u.startswith("That would") for u in units)
    assert any(
        u.endswith("Disabling them is possible. That would allow software to use both libraries.")
        for u in units
    )
    assert not any("following modes" in u for u in units)
    assert "The key part of the file looks like: `load_video insmod gzio`." in units
    assert "blank: A space or tab character." in units
    assert not any(u.startswith("However") for u in units)


def test_a_long_list_says_how_many_items_it_leaves_out() -> None:
    items = "\n".join(f"- Item number {i} of the list, with a few words more." for i in range(40))
    units = units_of([(0, f"The options are:\n\n{items}")])
    assert len(units) == 1 and units[0].text.endswith("more.")
    assert "; and " in units[0].text


def test_a_list_after_a_paragraph_goes_with_its_last_sentence_never_item_by_item() -> None:
    items = "\n".join(f"- func_{i} in version 2.{i}." for i in range(30))
    text = f"We give here the functions added after version 2.0, and in which version.\n\n{items}"
    units = [u.text for u in units_of([(0, text)])]
    assert len(units) == 1, units
    assert units[0].startswith("We give here the functions added after version 2.0, and in which")
    assert "version: func_0 in version 2.0; func_1" in units[0]
    assert units[0].endswith("more.")


def test_a_list_going_on_after_an_items_code_is_not_counted_short_nor_picked_apart() -> None:
    items = "\n".join(f"- func_{i} in version 2.{i}." for i in range(5))
    rest = "\n".join(f"- other_{i} in version 3.{i}." for i in range(30))
    text = (
        "We give here the functions added after version 2.0, and in which version.\n\n"
        f"{items}\n\n    #define old_name new_name\n\nThus code should use old_name.\n\n{rest}"
    )
    units = [u.text for u in units_of([(0, text)])]
    # The items after the code are the same list's: counted with those left out ("and 5
    # more" would hide the thirty after the code), never quoted as a list of their own.
    assert len(units) == 1, units
    assert "func_0 in version 2.0; func_1" in units[0]
    shown = units[0].count(" in version ")
    assert units[0].endswith(f"; and {35 - shown} more."), units
    assert not any(u.startswith(("func_", "other_")) for u in units), units


def test_doing_so_leans_on_what_was_said_before() -> None:
    text = "Use the --tag option to name the compiler. Doing so avoids a wrong guess."
    assert [u.text for u in units_of([(0, text)])] == [text]


def test_a_list_cut_between_two_passages_is_read_whole() -> None:
    first = "Therefore, the following actions produce errors:\n\n- DML: INSERT, UPDATE."
    second = "Note that no trigger runs.\n\n- DDL: CREATE, DROP.\n\n- LOCK in its long form."
    start = len(first) + 1
    joined = SummaryRequest(
        "k",
        "section",
        "S",
        ["S"],
        [first, second],
        passage_starts=[0, start],
        passage_joins=[None, " "],
    )
    apart = SummaryRequest("k", "section", "S", ["S"], [first, second], passage_starts=[0, start])
    whole = [u.text for u in units_of(joined.own_text())]
    assert any(
        u.startswith("Therefore, the following actions produce errors: DML")
        and "DDL: CREATE, DROP" in u
        and "LOCK in its long form" in u
        for u in whole
    ), whole
    # Without the join, the second passage's list has no lead-in and the first's lead-in
    # would claim a one-item list.
    assert len(apart.own_text()) == 2
    assert len(joined.own_text()) == 1
    text = first + " " + second
    for u in units_of(joined.own_text()):
        assert all(text[a:b] in text for a, b in u.spans)


def test_the_last_piece_of_an_example_is_no_entry_heading_its_paragraph() -> None:
    text = (
        "Object libraries collect object files.\n\n"
        "    add_library(archive OBJECT archive.cpp)\n\n"
        "    add_executable(test_exe $<TARGET_OBJECTS:archive> test.cpp)\n\n"
        "The link step of those other targets will use the object files."
    )
    units = [u.text for u in units_of([(0, text)])]
    assert not any(u.startswith("add_executable") for u in units), units
    assert "Object libraries collect object files." in units


def test_query_results_and_nodes_carry_sentences_with_spans(fixtures_index: Index) -> None:
    from retriever import QueryRequest, Retriever

    retriever = Retriever(fixtures_index)
    request = QueryRequest(
        query="What does the maintenance chapter cover?", k=5, kinds=frozenset({"summary"})
    )
    out = retriever.query(request).to_json()
    summaries = [r for r in out["results"] if r["kind"] == "summary"]
    assert summaries
    for r in summaries:
        assert r["sentences"] and all(s["spans"] for s in r["sentences"])
        for s in r["sentences"]:
            for span in s["spans"]:
                assert r["char_start"] <= span["char_start"] < span["char_end"] <= r["char_end"]


def test_a_licence_held_all_in_its_parts_rests_on_their_headings() -> None:
    """A licence node with no heading line and no text of its own (every line sits in its
    parts) is named, not summarized, and that sentence still has spans."""
    parts = [
        ChildSummary("Preamble", "The licences for most software …", heading=(0, 8)),
        ChildSummary("TERMS AND CONDITIONS", "Definitions …", heading=(400, 420)),
    ]
    request = SummaryRequest(
        "k", "section", "GNU General Public License", ["M4", "GNU General Public License"], []
    )
    request.children = parts
    result = ExtractiveSummarizer().summarize_one(request)
    assert result.sentences, result
    assert result.sentences[0].text.endswith("not summarized.")
    assert all(s.spans for s in result.sentences), result.sentences
    assert result.sentences[0].spans == ((0, 8), (400, 420))


LICENSED = """# Frobnicator Manual

The frobnicator turns widgets into gadgets at up to 40 widgets a minute.

## Appendix A GNU General Public License

### A.1 License for copying the package

Version 3, 29 June 2007

    Copyright (C) 2007 Free Software Foundation, Inc.
    Everyone is permitted to copy and distribute verbatim copies of this license document.

### Preamble

The GNU General Public License is a free, copyleft license for software and other kinds of works.

When we speak of free software, we are referring to freedom, not price.

### TERMS AND CONDITIONS

To "modify" a work means to copy from or adapt all or part of the work.
"""


def test_a_licence_whose_text_lies_in_its_parts_says_which_licence_and_what_for(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "frob.md").write_text(LICENSED, encoding="utf-8")
    index = Index(Settings(store=tmp_path / "store", embedder="hashing"))
    index.ingest_paths([folder])
    nodes = {n["heading_path"][-1]: n for n in _summaries(index, "frob.md")}
    sentences = [s["text"] for s in nodes["Appendix A GNU General Public License"]["sentences"]]
    assert sentences[0] == (
        "GNU General Public License, Version 3, 29 June 2007: a licence text, not summarized."
    ), sentences
    purpose = "The GNU General Public License is a free, copyleft license for software and other"
    assert sentences[1].startswith(purpose), sentences
    assert not any("modify" in s for s in sentences), sentences  # no clause of its terms
    assert_sourced(index, "frob.md")
    index.close()
