"""Checking a new planted-fault set before it is committed: hashes, the fault, kinds, splits."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.faithfulness.source import labels, passage, text_hash
from benchmarks.faithfulness.validate import check, problems, split

PAGE = """<html><body><h1>Pump Manual</h1><h2>Seals</h2>
<p>Replace the seal only if the leakage exceeds 10 drops per minute.</p>
<dl><dt>--force</dt><dd><p>Skips the leak test.</p></dd></dl>
</body></html>"""


def _triple(page: Path, **changes: object) -> dict[str, object]:
    text = passage(str(page), 0)
    triple: dict[str, object] = {
        "id": "t-1", "kind": "condition", "style": "condensed", "file": str(page),
        "passages": [{"paragraph": 0, "sha256_16": text_hash(text)}],
        "faithful": "Replace the seal only when it leaks more than 10 drops a minute.",
        "fault": {"replace": "only when it leaks", "with": "when it leaks"},
    }  # fmt: skip
    triple.update(changes)
    return triple


def test_a_valid_triple_has_no_problems_and_its_paragraph_is_labelled(tmp_path: Path) -> None:
    page = tmp_path / "pump.html"
    page.write_text(PAGE)
    assert problems(_triple(page)) == []
    assert labels(str(page), 0) == ["Pump Manual", "Seals"]
    assert labels(str(page), 1) == ["Pump Manual", "Seals", "--force"]


def test_each_fault_of_a_triple_is_named(tmp_path: Path) -> None:
    page = tmp_path / "pump.html"
    page.write_text(PAGE)
    bad_hash = _triple(page, passages=[{"paragraph": 0, "sha256_16": "0" * 16}])
    assert any("hash" in p for p in problems(bad_hash))
    twice = _triple(page, fault={"replace": "e", "with": "E"})
    assert any("occurs" in p for p in problems(twice))
    assert any("split" in p for p in problems(_triple(page, split="tuning")))
    assert any("kind" in p for p in problems(_triple(page, kind="typo")))
    assert any("chapter" in p for p in problems(_triple(page, style="chapter")))


def test_a_set_with_a_duplicate_id_is_refused(tmp_path: Path) -> None:
    page = tmp_path / "pump.html"
    page.write_text(PAGE)
    path = tmp_path / "set.json"
    path.write_text(json.dumps({"triples": [_triple(page), _triple(page)]}))
    result = check(path)
    assert result["problems"] == {"t-1": ["duplicate id"]}
    assert result["kinds"] == {"condition": 2} and result["triples"] == 2


def test_a_set_is_split_once_per_kind_by_its_seed(tmp_path: Path) -> None:
    page = tmp_path / "pump.html"
    page.write_text(PAGE)
    triples = [
        _triple(page, id=f"t-{i}", kind=k) for i, k in enumerate(["number"] * 4 + ["absolute"] * 2)
    ]
    path = tmp_path / "set.json"
    path.write_text(json.dumps({"version": 1, "triples": triples}))
    assert split(path, "seed-1", "tuning_9", "held_out_9") == {"tuning_9": 3, "held_out_9": 3}
    first = json.loads(path.read_text())
    assert first["split_seed"] == "seed-1"
    assert check(path, committed=True)["problems"] == {}
    assert check(path)["problems"]  # a committed set is no draft
    path.write_text(json.dumps({"version": 1, "triples": triples}))
    split(path, "seed-1", "tuning_9", "held_out_9")
    assert json.loads(path.read_text()) == first  # the same seed gives the same halves
