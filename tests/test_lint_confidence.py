"""Each flag says which rule raised it and how likely it names a real fault."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from indexer.lint import Linter, LintFlag
from indexer.lint.confidence import MODEL, ConfidenceModel, default_model

SOURCE = [
    "Tighten the impeller nut to 95 N·m. Replace the seal only if the leakage exceeds 10 drops "
    "per minute. Do not start the pump before the casing is filled with liquid.",
    "Lubricate the bearings every 2,000 operating hours.",
]


def _flags(summary: str) -> list[LintFlag]:
    return Linter(None).lint(summary, SOURCE)


def test_every_rules_flag_names_its_rule_and_a_confidence() -> None:
    summaries = {
        "number.changed": "Tighten the impeller nut to 120 N·m.",
        "condition.clause": "Replace the seal when the leakage exceeds 10 drops per minute.",
        "negation.dropped": "Start the pump before the casing is filled with liquid.",
        "absolute.unsupported": "Always lubricate the bearings every 2,000 operating hours.",
    }
    weights = json.loads(MODEL.read_text())["weights"]
    for rule, summary in summaries.items():
        flags = _flags(summary)
        assert rule in {f.rule for f in flags}, (rule, flags)
        for f in flags:
            assert f.confidence is not None and 0.0 < f.confidence < 1.0
            assert f"rule={f.rule}" in weights  # the shipped model knows every rule it rates


def test_a_changed_number_is_rated_above_an_added_negation() -> None:
    number = _flags("Tighten the impeller nut to 120 N·m.")[0]
    negation = next(
        f for f in _flags("Do not lubricate the bearings every 2,000 operating hours.")
        if f.rule == "negation.added"
    )  # fmt: skip
    assert number.confidence is not None and negation.confidence is not None
    assert number.confidence > negation.confidence


def test_a_model_read_from_a_file_rates_the_linter_flags(tmp_path: Path) -> None:
    path = tmp_path / "confidence.json"
    path.write_text(json.dumps({"weights": {"rule=number.changed": 5.0}, "intercept": -5.0}))
    linter = Linter(None, confidence=ConfidenceModel.load(path))
    flags = linter.lint("Tighten the impeller nut to 120 N·m.", SOURCE)
    assert [(f.rule, f.confidence) for f in flags] == [("number.changed", 0.5)]
    # A rule the model does not know gets the intercept alone.
    unknown = replace(flags[0], rule="number.unheard-of", confidence=None)
    assert ConfidenceModel.load(path).probability(unknown) == round(1 / (1 + 2.718281828**5), 3)


def test_a_judge_flag_is_left_unrated() -> None:
    judge = LintFlag("unsupported", "judge: not in the source", "It always works.", origin="judge")
    assert default_model().rate([judge]) == [judge]
