"""The summary lint finds the failures experts found, and stays quiet on faithful text."""

from __future__ import annotations

from indexer.lint import lint_summary

SOURCE = [
    "Tighten the impeller nut to 95 N·m. Replace the seal only if the leakage exceeds 10 drops "
    "per minute. Do not start the pump before the casing is filled with liquid.",
    "Lubricate the bearings every 2,000 operating hours.",
]


def kinds(summary: str) -> list[str]:
    return [f.kind for f in lint_summary(summary, SOURCE)]


def test_faithful_summary_is_clean() -> None:
    summary = (
        "Tighten the impeller nut to 95 N·m. Replace the seal only if the leakage exceeds 10 "
        "drops per minute."
    )
    assert kinds(summary) == []


def test_invented_number_is_flagged() -> None:
    flags = lint_summary("Tighten the impeller nut to 120 N·m.", SOURCE)
    assert [f.kind for f in flags] == ["number"]
    assert "120" in flags[0].summary_text


def test_dropped_condition_is_flagged() -> None:
    flags = lint_summary("Replace the seal when the leakage exceeds 10 drops per minute.", SOURCE)
    assert "condition" in [f.kind for f in flags]
    cond = next(f for f in flags if f.kind == "condition")
    assert "only if" in cond.message
    assert cond.source_text and "only if" in cond.source_text


def test_dropped_negation_is_flagged() -> None:
    assert "negation" in kinds("Start the pump before the casing is filled with liquid.")


def test_unsupported_absolute_is_flagged() -> None:
    assert "absolute" in kinds("Always replace the seal when the leakage exceeds 10 drops.")


def test_number_formats_match() -> None:
    assert kinds("Lubricate the bearings every 2,000 operating hours.") == []


def test_part_numbers_and_codes_are_not_invented_numbers() -> None:
    source = ["Order seal kit PX-2041-S when alarm E-12 appears."]
    assert lint_summary("Seal kit PX-2041-S is ordered when alarm E-12 appears.", source) == []
    flags = lint_summary("Seal kit PX-2042-S is ordered when alarm E-12 appears.", source)
    assert [f.kind for f in flags] == ["number"]
