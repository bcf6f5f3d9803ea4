"""The sentence splitter benchmark's parts: its scorer, how each splitter's output is read as
boundaries, and the gold set (rebuilt from the installed manuals by the same seeded sample)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.bench_sentences import (
    GOLD,
    HALVES,
    MANUALS,
    _ends,
    is_prose,
    load_gold,
    sample,
    score,
    splitters,
)


def test_score_counts_false_and_missed_boundaries_and_exact_paragraphs() -> None:
    got = score([[10, 20], [5], []], [[10, 30], [5], []])
    assert got["false_boundaries"] == 1 and got["missed_boundaries"] == 1
    assert got["precision"] == pytest.approx(2 / 3, abs=1e-4)
    assert got["recall"] == pytest.approx(2 / 3, abs=1e-4)
    assert got["exact"] == pytest.approx(2 / 3, abs=1e-4)
    assert score([[3]], [[]])["precision"] == 0.0


def test_every_splitter_reads_as_sentence_ends_without_trailing_space() -> None:
    text = "The first one ends here.  The second one (an aside) too. A third!"
    assert _ends(text, iter([(0, 26), (26, 57), (57, len(text))])) == [24, 56]
    for name, split in splitters().items():
        assert split(text) == [24, 56], name


def test_the_sample_filter_keeps_prose_and_drops_code_and_tables() -> None:
    prose = "The index is rebuilt on demand. Each run reads the manual again from the first page."
    assert is_prose(prose)
    assert not is_prose("Set x. " + "    int main(void) { return 0; }\n" * 3)
    assert not is_prose("Name | Meaning\nst | stratum. It counts hops.\npoll | poll interval")
    assert not is_prose("Too short. Really.")


def test_gold_halves_are_fixed_by_manual() -> None:
    doc = json.loads(GOLD.read_text(encoding="utf-8"))
    assert doc["halves"] == {m: h for m, (_, h) in MANUALS.items()}
    halves = Counter(h for _, h in MANUALS.values())
    assert set(halves) == set(HALVES) and halves["tuning"] == halves["held_out"]
    paragraphs = doc["paragraphs"]
    assert len(paragraphs) >= 300 and len({p["manual"] for p in paragraphs}) >= 6
    assert all(p["boundaries"] == sorted(set(p["boundaries"])) for p in paragraphs)


needs_manuals = pytest.mark.skipif(
    not all((Path("/usr/share") / root).exists() for root, _ in MANUALS.values()),
    reason="the Debian manuals are not installed",
)


@needs_manuals
def test_gold_rebuilds_from_the_manuals_and_the_seeded_sample() -> None:
    gold, missing = load_gold()
    assert missing == 0 and len(gold) >= 300
    for paragraph, boundaries in gold:
        for b in boundaries:
            assert 0 < b < len(paragraph.text) and not paragraph.text[b - 1].isspace()
    # The gold was drawn by the seeded sample. A change of the HTML reading may move a few
    # paragraphs in or out of a manual's pool (the gold is still whole: none missing), but the
    # sample must still draw the gold: a changed seed or sampler would share little of it.
    drawn = {p.sha256 for p in sample()}
    assert sum(p.sha256 in drawn for p, _ in gold) >= 0.97 * len(gold)
