"""The audit queue on the team's fault sets: does it send experts to real faults, and how
many flags do faithful summaries draw? ``python -m benchmarks.audit.queue``.

Two fault sets of real manuals, each split once into a tuning and a held-out half:

- **planted**: the planted-fault triples (``benchmarks/faithfulness/``): a faithful paraphrase of
  a manual passage in the style of a language model's summary, and the same paraphrase with one
  planted fault (a dropped condition, a flipped negation, a changed number, an absolute). As a
  language-model backend would cite it, each summary sentence cites the passage, and is checked
  against it alone (:func:`indexer.lint.sourced.lint_sentences` does this with spans).
- **read**: summaries of real manuals read by the team's judges (``benchmarks/summaries/``),
  every system's: a summary judged misleading holds a real fault, one judged not misleading is
  faithful; each is checked sentence by sentence against the spans its sentences cite. Reported
  also with the summaries judged unclean but not misleading counted as faulty (a cut sentence,
  a lead-in without what it announces: faults an expert corrects, though no meaning changed),
  and, on the held-out halves, with a summary faulty when judged misleading or when, judged
  once more on that question alone, a sentence of it depends on something it leaves out (its
  lead-in's list, its list's lead-in, its antecedent: :mod:`benchmarks.audit.dependencies`).

A flag is shown when its confidence reaches the threshold; the queue orders a manual's summaries
by their most confident shown flag. Reported per half: the share of the first 10 queue items
per manual that hold a real fault, shown flags per 100 faithful summaries, and recall per fault
kind (a faulty summary with a shown flag of its kind). The threshold is chosen on the tuning
halves: the lowest that keeps flags per 100 faithful summaries at most :data:`MAX_FALSE`.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from benchmarks.common import ROOT
from benchmarks.faithfulness.run import load as load_triples
from benchmarks.faithfulness.source import PACKAGES
from indexer.lint import Linter
from indexer.lint.flags import LintFlag
from indexer.lint.sourced import lint_sentences
from indexer.sourced import ResolvedSentence, ResolvedSpan
from indexer.summarizers.sentences import split_sentences
from indexer.summarizers.support import align_text

if TYPE_CHECKING:
    from benchmarks.summaries.corpus import Node

OUT = ROOT / "benchmarks" / "results" / "audit_queue.json"
JUDGMENTS = ROOT / "benchmarks" / "summaries" / "judgments.jsonl"
MAX_FALSE = 5.0  # shown flags per 100 faithful summaries
THRESHOLDS = [round(0.05 * i, 2) for i in range(21)]
# Judges name a summary misleading or unclean, not the kind of flag that finds it.
_UNNAMED = ("context", "unclean")


@dataclass(frozen=True)
class Item:
    """One summary in a queue: its manual, whether it holds a fault (and which), its flags."""

    manual: str
    half: str
    fault: str | None
    flags: tuple[LintFlag, ...]
    key: str = ""  # the summary benchmark's key of a read summary


def _manual(path: str) -> str:
    return next((pkg for prefix, pkg in PACKAGES.items() if path.startswith(prefix)), path)


def planted(linter: Linter, *, cited: bool = False) -> list[Item]:
    """Every planted-fault triple as a faithful and a faulty summary, linted sentence by
    sentence: against its passages (as the product checks a cited span: in its paragraph), or
    with ``cited`` against the one or two source sentences that support it best only (measured:
    more false flags, a condition or negation is often stated in the sentence next to it)."""
    out: list[Item] = []
    for t in load_triples():
        half = "tuning" if t["split"].startswith("tuning") else "held_out"
        source = "\n\n".join(t["sources"])
        for text, fault in ((t["faithful"], None), (t["faulty"], t["kind"])):
            flags: list[LintFlag] = []
            for sentence in split_sentences(text):
                sources = t["sources"]
                if cited:
                    aligned = align_text(sentence, [(0, source)])
                    sources = [source[a:b] for s in aligned for a, b in s.spans] or sources
                flags.extend(linter.lint(sentence, sources, t["labels"]))
            out.append(Item(_manual(t["file"]), half, fault, tuple(flags)))
    return out


HALVES = ("tuning", "held_out", "fresh", "third")


def judged(
    halves: tuple[str, ...] = HALVES,
) -> Iterator[tuple[Node, list[str], list[ResolvedSentence], dict[str, Any]]]:
    """Every judged summary of the summary benchmark (each system's) in ``halves``: its node,
    the node's headings, its sentences with their spans, and its judges' verdict."""
    from benchmarks.summaries.corpus import judged_nodes
    from benchmarks.summaries.judging import summary_key
    from benchmarks.summaries.systems import SYSTEMS, summarize

    verdicts = {
        d["key"]: d
        for line in JUDGMENTS.read_text(encoding="utf-8").splitlines()
        if line.strip() and (d := json.loads(line))
    }
    for node in judged_nodes():
        if node.manual.split not in halves:
            continue
        labels = [h for h in node.heading_path if h]
        for system in SYSTEMS:
            summary = summarize(node, system)
            verdict = verdicts.get(summary_key(node, summary))
            if verdict is None:
                continue
            sentences = [
                ResolvedSentence(
                    s.text, tuple(ResolvedSpan(a, b) for a, b in s.spans), s.kind, True
                )
                for s in summary.sentences
            ]
            yield node, labels, sentences, verdict


def read(linter: Linter, halves: tuple[str, ...] = HALVES) -> list[Item]:
    """Every judged summary of the summary benchmark (each system's) in ``halves``, linted
    sentence by sentence against its cited spans; faulty when its judges found it misleading,
    ``unclean`` when they found it not misleading but not clean (a cut sentence, a lead-in
    without what it announces, navigation)."""
    out: list[Item] = []
    for node, labels, sentences, verdict in judged(halves):
        flags = lint_sentences(linter, sentences, node.text, labels)
        fault = "context" if verdict["misleading"] else None if verdict["clean"] else "unclean"
        out.append(Item(node.manual.name, node.manual.split, fault, tuple(flags), verdict["key"]))
    return out


def with_dependencies(items: list[Item], dependent: dict[str, bool]) -> list[Item]:
    """``items`` of the halves whose summaries were judged for what they leave out
    (:mod:`benchmarks.audit.dependencies`), a summary faulty when judged misleading
    (``context``) or, if not, when a sentence depends on something it leaves out
    (``dependency``); a summary without that verdict is left out."""
    out: list[Item] = []
    for i in items:
        if i.key not in dependent:
            continue
        fault = "context" if i.fault == "context" else "dependency" if dependent[i.key] else None
        out.append(Item(i.manual, i.half, fault, i.flags, i.key))
    return out


def misleading_only(items: list[Item]) -> list[Item]:
    """``items`` with only the misleading ones faulty (an unclean summary counted faithful)."""
    return [
        Item(i.manual, i.half, i.fault if i.fault == "context" else None, i.flags, i.key)
        for i in items
    ]


def scores(items: list[Item], threshold: float) -> dict[str, Any]:
    """Queue precision, flags on faithful summaries and recall per kind at ``threshold``."""

    def shown(item: Item) -> list[LintFlag]:
        return [f for f in item.flags if (f.confidence or 0.0) >= threshold]

    faithful = [i for i in items if i.fault is None]
    false = sum(len(shown(i)) for i in faithful)
    by_manual: dict[str, list[Item]] = defaultdict(list)
    for i in items:
        if shown(i):
            by_manual[i.manual].append(i)
    first: list[float] = []
    for queue in by_manual.values():
        queue.sort(key=lambda i: -max(f.confidence or 0.0 for f in shown(i)))
        top = queue[:10]
        first.append(sum(1 for i in top if i.fault is not None) / len(top))
    kinds: dict[str, list[bool]] = defaultdict(list)
    for i in items:
        if i.fault is not None:
            # A summary judged misleading is found by any shown flag (its judges name no kind).
            named = i.fault in _UNNAMED or any(f.kind == i.fault for f in shown(i))
            kinds[i.fault].append(bool(shown(i)) and named)
    return {
        "threshold": threshold,
        "flags_per_100_faithful": round(100 * false / max(len(faithful), 1), 2),
        "first_10_real_mean": round(sum(first) / len(first), 3) if first else None,
        "first_10_real_min": round(min(first), 3) if first else None,
        "manuals_with_a_queue": len(first),
        "recall": {k: round(sum(v) / len(v), 3) for k, v in sorted(kinds.items())},
        "faulty": sum(1 for i in items if i.fault is not None),
        "faithful": len(faithful),
    }


def main() -> dict[str, Any]:
    from indexer.settings import Settings

    linter = Linter.from_settings(Settings())
    planted_items = planted(linter)
    tuning = [i for i in planted_items if i.half == "tuning"]
    held = [i for i in planted_items if i.half == "held_out"]
    every = read(linter)
    real = misleading_only(every)
    real_tuning = [i for i in real if i.half == "tuning"]
    real_held = [i for i in real if i.half == "held_out"]
    real_fresh = [i for i in real if i.half == "fresh"]
    real_third = [i for i in real if i.half == "third"]
    sweep = {t: scores(tuning + real_tuning, t) for t in THRESHOLDS}
    ok = [t for t, r in sweep.items() if r["flags_per_100_faithful"] <= MAX_FALSE]
    chosen = min(ok) if ok else max(THRESHOLDS)
    shipped = Settings().lint_min_confidence
    result = {
        "rule": f"lowest threshold with at most {MAX_FALSE} shown flags per 100 faithful "
        "summaries on the tuning halves of both sets",
        "chosen_threshold": chosen,
        "shipped_threshold": shipped,
        "planted": {
            "tuning": scores(tuning, chosen),
            "held_out": scores(held, chosen),
            "held_out_at_shipped": scores(held, shipped),
            "held_out_all_flags": scores(held, 0.0),
        },
        "read": {
            "tuning": scores(real_tuning, chosen),
            "held_out": scores(real_held, chosen),
            "held_out_at_shipped": scores(real_held, shipped),
            "held_out_all_flags": scores(real_held, 0.0),
            # The manuals added as a second held-out half (benchmarks/summaries/manuals.py).
            "fresh": scores(real_fresh, chosen),
            "fresh_at_shipped": scores(real_fresh, shipped),
            "fresh_all_flags": scores(real_fresh, 0.0),
            # The third held-out half, judged once its rules were fixed: never read for the audit.
            "third": scores(real_third, chosen),
            "third_at_shipped": scores(real_third, shipped),
            "third_all_flags": scores(real_third, 0.0),
        },
        # A summary its judges found unclean (not misleading) counted as holding a fault: the
        # dependency check is asked to find a lead-in left without what it announces.
        "read_misleading_or_unclean": {
            half: scores([i for i in every if i.half == half], chosen) for half in HALVES
        },
        # A summary judged misleading, or one a sentence of which depends on something the
        # summary leaves out (judged once more on that question alone, blind to the lint).
        "read_misleading_or_dependent": _dependency_scores(every, chosen, shipped),
        "tuning_sweep": {str(t): r for t, r in sweep.items()},
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    return result


def _dependency_scores(every: list[Item], chosen: float, shipped: float) -> dict[str, Any]:
    from benchmarks.audit.dependencies import load

    items = with_dependencies(every, load())
    out: dict[str, Any] = {}
    for half in HALVES:
        mine = [i for i in items if i.half == half]
        if mine:
            out[half] = scores(mine, chosen)
            out[f"{half}_at_shipped"] = scores(mine, shipped)
            out[f"{half}_all_flags"] = scores(mine, 0.0)
    return out


if __name__ == "__main__":
    print(json.dumps({k: v for k, v in main().items() if k != "tuning_sweep"}, indent=1))
