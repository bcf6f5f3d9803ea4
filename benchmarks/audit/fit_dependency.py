"""Fits the dependency check's confidence (``indexer/lint/models/dependency.json``).
``python -m benchmarks.audit.fit_dependency``.

The check (:mod:`indexer.lint.dependency`) describes each quoted sentence of a summary by what
it leans on in its source and the summary leaves out: the sentence before it that a pronoun
points at, the term it describes, its list's lead-in, the list it announces. No planted fault
is of that kind; the sentences the team's judges read are (``benchmarks/summaries/``). On the
tuning half only, every extracted sentence of a judged summary that the check flags (one of its
features that raise a flag holds) is one example, positive when its judges named it misleading
(``misleading_sentences``); a logistic model over the features gives the probability that a
flagged sentence with those features misleads. Sentences the check does not flag are left out:
they would teach the model what an unflagged sentence is, which no flag's confidence needs, and
pull every weight toward their low rate. Its L2 regularisation is
chosen from :data:`GRID` by the log loss of leaving one manual out at a time (each manual's
sentences predicted by a model fitted on the others).
The held-out and fresh halves are left to ``python -m benchmarks.audit.queue``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import numpy as np

from benchmarks.audit.queue import judged
from indexer.lint.dependency import FEATURES, MODEL_PATH
from indexer.lint.sourced import leanings

GRID = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0)  # inverse regularisation strengths tried
_LABEL = re.compile(r"(\d+)$")


def examples(
    halves: tuple[str, ...] = ("tuning",),
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The features, labels (1: named misleading) and manuals of every extracted judged
    sentence the check flags."""
    rows: list[list[float]] = []
    labels: list[int] = []
    manuals: list[str] = []
    for node, headings, sentences, verdict in judged(halves):
        named = {
            int(m.group(1)) - 1
            for label in verdict.get("misleading_sentences", [])
            if (m := _LABEL.search(str(label)))
        }
        for i, found in leanings(sentences, node.text, headings):
            if not found.any:
                continue
            rows.append([found.features[n] for n in FEATURES])
            labels.append(int(i in named))
            manuals.append(node.manual.name)
    return np.asarray(rows, dtype=np.float64), np.asarray(labels), np.asarray(manuals)


def _held_out_loss(x: np.ndarray, y: np.ndarray, groups: np.ndarray, c: float) -> float:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import log_loss

    p = np.zeros(len(y))
    for group in np.unique(groups):
        out = groups == group
        model = LogisticRegression(C=c, max_iter=5000).fit(x[~out], y[~out])
        p[out] = model.predict_proba(x[out])[:, 1]
    return float(log_loss(y, p))


def fit() -> dict[str, Any]:
    """The model fitted on the tuning half, written to the shipped file."""
    from sklearn.linear_model import LogisticRegression

    x, y, groups = examples()
    losses = {c: _held_out_loss(x, y, groups, c) for c in GRID}
    c = min(GRID, key=lambda k: losses[k])
    model = LogisticRegression(C=c, max_iter=5000).fit(x, y)
    counts: Counter[str] = Counter()
    positives: Counter[str] = Counter()
    for row, label in zip(x, y, strict=True):
        for name, value in zip(FEATURES, row, strict=True):
            if value:
                counts[name] += 1
                positives[name] += int(label)
    out = {
        "features": list(FEATURES),
        "weights": {n: round(float(w), 4) for n, w in zip(FEATURES, model.coef_[0], strict=True)},
        "intercept": round(float(model.intercept_[0]), 4),
        "C": c,
        "leave_one_manual_out_log_loss": {str(k): round(v, 4) for k, v in losses.items()},
        "fitted_on": {
            "set": "summary benchmark, tuning half: every extracted sentence the check flags in "
            "a judged summary (each system's); positive when its judges named it misleading",
            "sentences": int(len(y)),
            "misleading": int(y.sum()),
            "by_feature": {
                n: {"sentences": counts[n], "misleading": positives[n]} for n in FEATURES
            },
        },
    }
    MODEL_PATH.write_text(json.dumps(out, indent=1) + "\n")
    return out


if __name__ == "__main__":
    print(json.dumps(fit(), indent=1))
