"""Fits the flags' confidence (`indexer/lint/models/confidence.json`) and measures the queue.

`python -m benchmarks.faithfulness.fit_confidence` (part of `make fit-lint`). Every flag the
shipped rules raise on the development triples (sets 1-6, both summaries) is one example: true
when it is on the faulty summary and names the planted fault's kind, false otherwise. A logistic
model over :func:`indexer.lint.confidence.features` is cross-validated one manual out at a time
(area under the ROC curve of the flags of the manual left out), then fitted on all of them.

The figure that matters to an auditor is how many of the first summaries the queue shows hold the
fault their flag names. The seventh and eighth sets (Exim and R; zsh and rsyslog; never used for
a choice of this model) measure it: each set's 340 summaries, faithful and faulty, ordered as the
audit queue orders them — by the flags' kinds (dropped conditions and negations first, the order
before this model) or by confidence — and the share of real, rightly named faults among the
first 10, 20 and 40.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from api.service.audit_queue import SERIOUS_FLAGS
from benchmarks.faithfulness.fit import DEVELOPMENT as CONDITION_DEVELOPMENT
from benchmarks.faithfulness.fit import manual
from benchmarks.faithfulness.run import load
from indexer.lint import Linter, LintFlag
from indexer.lint.confidence import MODEL, ConfidenceModel, features
from indexer.settings import Settings

# The condition decision's development sets (1-5) and the sixth set.
DEVELOPMENT = (*CONDITION_DEVELOPMENT, "tuning_6", "held_out_6")
TESTS = {"set_7": ("tuning_7", "held_out_7"), "set_8": ("tuning_8", "held_out_8")}
TOP = (10, 20, 40)


@dataclass(frozen=True)
class Flagged:
    """One linted summary of a triple: its flags and whether it holds the fault a flag names."""

    triple: str
    manual: str
    flags: list[LintFlag]
    truth: list[bool]  # per flag: on the faulty summary and of the planted fault's kind


def collect(splits: Sequence[str], linter: Linter) -> list[Flagged]:
    """Both summaries of every triple in ``splits``, linted (summaries without flags included)."""
    out = []
    for split in splits:
        for t in load(split):
            for which in ("faithful", "faulty"):
                flags = linter.lint(t[which], t["sources"], t["labels"])
                truth = [which == "faulty" and f.kind == t["kind"] for f in flags]
                out.append(Flagged(f"{t['id']}/{which}", manual(t["file"]), flags, truth))
    return out


def _matrix(rows: list[Flagged], names: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x, y, group = [], [], []
    for r in rows:
        for f, truth in zip(r.flags, r.truth, strict=True):
            feats = features(f)
            x.append([feats.get(n, 0.0) for n in names])
            y.append(truth)
            group.append(r.manual)
    return np.array(x), np.array(y), np.array(group)


def _names(rows: list[Flagged]) -> list[str]:
    return sorted({n for r in rows for f in r.flags for n in features(f)})


def fit(rows: list[Flagged]) -> dict[str, Any]:
    """Cross-validated one manual out at a time, then fitted on every row."""
    names = _names(rows)
    x, y, group = _matrix(rows, names)
    oof = np.zeros(len(y))
    for m in sorted(set(group)):
        held = group == m
        model = LogisticRegression(max_iter=5000).fit(x[~held], y[~held])
        oof[held] = model.predict_proba(x[held])[:, 1]
    model = LogisticRegression(max_iter=5000).fit(x, y)
    return {
        "weights": {n: round(float(w), 4) for n, w in zip(names, model.coef_[0], strict=True)},
        "intercept": round(float(model.intercept_[0]), 4),
        "fitted_on": {
            "splits": list(DEVELOPMENT),
            "flags": int(len(y)),
            "true": int(y.sum()),
            "manuals": len(set(group)),
        },  # fmt: skip
        "cross_validation": {"auc_leave_one_manual_out": round(float(roc_auc_score(y, oof)), 3)},
    }


def _by_kinds(flags: list[LintFlag]) -> tuple[float, ...]:
    """The queue's order before confidence: serious kinds first, then more flags first."""
    return (-sum(f.kind in SERIOUS_FLAGS for f in flags), -len(flags))


def _by_confidence(flags: list[LintFlag]) -> tuple[float, ...]:
    return (-max((f.confidence or 0.0) for f in flags), *_by_kinds(flags))


def queue_precision(
    rows: list[Flagged], order: Callable[[list[LintFlag]], tuple[float, ...]]
) -> dict[str, Any]:
    """The share of summaries holding the fault a flag names among the first of the queue."""
    flagged = sorted((r for r in rows if r.flags), key=lambda r: (order(r.flags), r.triple))
    hits = [any(r.truth) for r in flagged]
    out: dict[str, Any] = {f"first_{n}": round(float(np.mean(hits[:n])), 3) for n in TOP}
    out["all_flagged"] = round(float(np.mean(hits)), 3) if hits else 0.0
    out["flagged_summaries"] = len(hits)
    return out


def evaluate(rows: list[Flagged]) -> dict[str, Any]:
    """The test set's flags: the model's area under the curve and the queue's precision."""
    y = [t for r in rows for t in r.truth]
    p = [f.confidence or 0.0 for r in rows for f in r.flags]
    return {
        "flags": len(y),
        "auc": round(float(roc_auc_score(y, p)), 3),
        "queue_by_kinds": queue_precision(rows, _by_kinds),
        "queue_by_confidence": queue_precision(rows, _by_confidence),
    }


def main() -> None:
    """Fit on the development sets, score the test sets with the model, write it."""
    base = Linter.from_settings(Settings())
    model = fit(collect(DEVELOPMENT, base))
    fitted = ConfidenceModel(weights=model["weights"], intercept=model["intercept"])
    rated = Linter(base.vectors, confidence=fitted)
    model["test"] = {name: evaluate(collect(halves, rated)) for name, halves in TESTS.items()}
    MODEL.write_text(json.dumps(model, indent=1) + "\n")
    print(json.dumps({k: model[k] for k in ("fitted_on", "cross_validation", "test")}, indent=1))


if __name__ == "__main__":
    main()
