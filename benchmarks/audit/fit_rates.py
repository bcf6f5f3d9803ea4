"""Fits the fixed confidence of the lint rules the planted faults never exercise
(``indexer/lint/models/rule_rates.json``). ``python -m benchmarks.audit.fit_rates``.

The dependency rules flag a quoted sentence that leans on a sentence the summary left out, or
announces a list it does not hold. No planted fault is of that kind, so the logistic model of
:mod:`indexer.lint.confidence` never saw them. Their rate is read off the summaries the team's
judges read (``benchmarks/summaries/``), tuning half only: the share of a rule's flags that fell
on a summary judged misleading, with one real and one false flag added (Laplace's rule: a rule
seen a few times gets a rate near a coin toss, not 0 or 1). The held-out half is left to
``python -m benchmarks.audit.queue``.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from benchmarks.audit.queue import read
from indexer.lint import Linter
from indexer.lint.confidence import RULE_RATES
from indexer.settings import Settings

RULES = ("dependency.back", "dependency.forward")


def fit() -> dict[str, Any]:
    """The rates of :data:`RULES` on the tuning half, written to the shipped file."""
    items = read(Linter.from_settings(Settings()), halves=("tuning",))
    flags: Counter[str] = Counter()
    real: Counter[str] = Counter()
    for item in items:
        for flag in item.flags:
            if flag.rule in RULES:
                flags[flag.rule] += 1
                real[flag.rule] += item.fault is not None
    rates = {
        rule: {
            "rate": round((real[rule] + 1) / (flags[rule] + 2), 3),
            "flags": flags[rule],
            "on_misleading_summaries": real[rule],
        }
        for rule in RULES
    }
    model = {
        "rates": rates,
        "fitted_on": {
            "set": "summary benchmark, tuning half (judged summaries of every system)",
            "summaries": len(items),
            "misleading": sum(i.fault is not None for i in items),
        },
    }
    RULE_RATES.write_text(json.dumps(model, indent=1) + "\n")
    return model


if __name__ == "__main__":
    print(json.dumps(fit(), indent=1))
