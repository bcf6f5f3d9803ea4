"""How well the citation check tells a right citation from a wrong one: ``python -m
benchmarks.summaries.support``.

The check (:func:`indexer.summarizers.support.support`) asks of a summary sentence and the source
sentences it cites: are they what the sentence was written from? Measured on the planted-fault
benchmark's paraphrases of real manual passages (``benchmarks/faithfulness/``, written by the
team in the style of a language model's summary):

- a right citation: each sentence of a faithful paraphrase against the passage it paraphrases;
- a wrong citation: the same sentence against a nearby paragraph of the same page that it does
  not paraphrase (the mistake a model makes when it cites the line next to the right one).

The threshold (``MIN_COVERAGE``) is chosen on the tuning halves (accepting at least 90 % of right
citations, rejecting as many wrong ones as possible) and the figures to quote are the held-out
halves'. Written to ``benchmarks/results/citation_check.json``.
"""

from __future__ import annotations

import json
from typing import Any

from benchmarks.common import ROOT
from benchmarks.faithfulness.run import load
from benchmarks.faithfulness.source import paragraphs
from indexer.summarizers import support as check
from indexer.summarizers.sentences import split_sentences

OUT = ROOT / "benchmarks" / "results" / "citation_check.json"
THRESHOLDS = [round(0.3 + 0.05 * i, 2) for i in range(12)]
_OFFSETS = (2, -2, 3, -3)


def pairs(split_prefix: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(sentence, source) pairs of right and of wrong citations of one half."""
    right: list[tuple[str, str]] = []
    wrong: list[tuple[str, str]] = []
    for t in load():
        if not t["split"].startswith(split_prefix):
            continue
        source = " ".join(t["sources"])
        page = paragraphs(t["file"])
        first = t["passages"][0]["paragraph"]
        used = {ref["paragraph"] for ref in t["passages"]}
        other = next(
            (
                page[first + d]
                for d in _OFFSETS
                if 0 <= first + d < len(page)
                and first + d not in used
                and len(page[first + d]) > 80
            ),
            None,
        )
        for sentence in split_sentences(t["faithful"]):
            right.append((sentence, source))
            if other is not None:
                wrong.append((sentence, other))
    return right, wrong


def rates(
    right: list[tuple[str, str]], wrong: list[tuple[str, str]], threshold: float
) -> dict[str, float]:
    """Share of right citations accepted and of wrong ones rejected at ``threshold``."""

    def accepted(s: str, src: str) -> bool:
        found = check.support(s, src)
        return found.coverage >= threshold and not found.missing_numbers

    return {
        "right_accepted": sum(accepted(s, x) for s, x in right) / len(right),
        "wrong_rejected": sum(not accepted(s, x) for s, x in wrong) / len(wrong),
    }


def main() -> None:
    tuning = pairs("tuning")
    held = pairs("held_out")
    sweep = {t: rates(*tuning, t) for t in THRESHOLDS}
    eligible = [t for t, r in sweep.items() if r["right_accepted"] >= 0.9]
    chosen = max(eligible, key=lambda t: sweep[t]["wrong_rejected"]) if eligible else THRESHOLDS[0]
    result: dict[str, Any] = {
        "test": "content-word coverage of the sentence by the cited text, every number present",
        "rule": "threshold: the highest share of wrong citations rejected while accepting at "
        "least 90 % of right ones, on the tuning halves",
        "pairs": {
            "tuning": {"right": len(tuning[0]), "wrong": len(tuning[1])},
            "held_out": {"right": len(held[0]), "wrong": len(held[1])},
        },
        "tuning_sweep": sweep,
        "chosen": chosen,
        "in_code": check.MIN_COVERAGE,
        "held_out": rates(*held, chosen),
        "held_out_in_code": rates(*held, check.MIN_COVERAGE),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: result[k] for k in ("pairs", "chosen", "in_code", "held_out")}, indent=1))


if __name__ == "__main__":
    main()
