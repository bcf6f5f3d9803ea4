"""The optional judge model on the audit's held-out fault sets: ``benchmarks.audit.judge``.

The same held-out halves as ``benchmarks.audit.queue`` (planted faults in paraphrases, and the
summaries of real manuals the team's judges read), judged by the model the settings configure
(``OVERSTORY_LINT_JUDGE=1`` with an OpenAI-compatible server, as the service runs it), or else by
the bundled SmolLM2-135M in process. A call costs seconds on a CPU, so each set is sampled (a
seeded, fixed sample of ``--limit`` summaries, faulty and faithful alike). Reported for the
judge's flags alone, for the rules at the shipped threshold, and for both together: shown flags
per 100 faithful summaries, the first 10 queue items per manual that hold a real fault, recall
per fault kind (the same scoring as the queue benchmark).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from dataclasses import dataclass, replace
from typing import Any

from benchmarks.audit.queue import Item, scores
from benchmarks.common import ROOT
from benchmarks.faithfulness.run import load as load_triples
from indexer.lint import Linter
from indexer.lint.flags import LintFlag
from indexer.lint.judge import Judge, make_judge
from indexer.settings import Settings
from indexer.summarizers.sentences import split_sentences

OUT = ROOT / "benchmarks" / "results" / "audit_judge.json"
SEED = 7


@dataclass(frozen=True)
class Case:
    """One summary to judge: where it is from, its fault (None: faithful), what it cites."""

    manual: str
    fault: str | None
    summary: str
    sources: tuple[str, ...]
    labels: tuple[str, ...] = ()


def planted_cases() -> list[Case]:
    """The held-out planted-fault triples, a faithful and a faulty summary each."""
    from benchmarks.audit.queue import _manual

    out: list[Case] = []
    for t in load_triples():
        if t["split"].startswith("tuning"):
            continue
        for text, fault in ((t["faithful"], None), (t["faulty"], t["kind"])):
            out.append(
                Case(_manual(t["file"]), fault, text, tuple(t["sources"]), tuple(t["labels"]))
            )
    return out


def read_cases() -> list[Case]:
    """The held-out judged summaries of real manuals, with the text their sentences cite."""
    from benchmarks.summaries.corpus import judged_nodes
    from benchmarks.summaries.judging import summary_key
    from benchmarks.summaries.systems import SYSTEMS, summarize

    verdicts = {
        d["key"]: d
        for line in (ROOT / "benchmarks" / "summaries" / "judgments.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
        if line.strip() and (d := json.loads(line))
    }
    out: list[Case] = []
    for node in judged_nodes():
        if node.manual.split != "held_out":
            continue
        for system in SYSTEMS:
            summary = summarize(node, system)
            verdict = verdicts.get(summary_key(node, summary))
            if verdict is None or not summary.sentences:
                continue
            cited = [node.text[a:b] for s in summary.sentences for a, b in s.spans]
            out.append(
                Case(
                    node.manual.name,
                    "context" if verdict["misleading"] else None,
                    summary.text,
                    tuple(cited) or (node.source,),
                    tuple(h for h in node.heading_path if h),
                )
            )
    return out


def sample(cases: list[Case], limit: int) -> list[Case]:
    """A fixed sample holding faulty and faithful summaries in their proportions."""
    if len(cases) <= limit:
        return cases
    return random.Random(SEED).sample(cases, limit)


def the_judge(settings: Settings) -> Judge:
    """The configured judge, else the bundled small model in process."""
    configured = make_judge(settings)
    if configured is not None:
        return configured
    from indexer.summarizers.local import TransformersChatModel
    from indexer.summarizers.modelfiles import INSTALL_BUNDLED, bundled_gguf

    gguf = bundled_gguf()
    if gguf is None:
        raise SystemExit(f"no judge configured and no bundled model: {INSTALL_BUNDLED}")
    return Judge(TransformersChatModel(gguf, context_tokens=2048, threads=2), max_tokens=160)


def rule_flags(linter: Linter, case: Case) -> tuple[LintFlag, ...]:
    """The rules' flags, sentence by sentence against what the summary cites."""
    flags: list[LintFlag] = []
    for sentence in split_sentences(case.summary):
        flags.extend(linter.lint(sentence, list(case.sources), list(case.labels)))
    return tuple(flags)


def run(limit: int, sets: tuple[str, ...] = ("planted", "read")) -> dict[str, Any]:
    settings = Settings()
    linter = Linter.from_settings(settings)
    judge = the_judge(settings)
    shipped = settings.lint_min_confidence
    result: dict[str, Any] = {"judge": judge.name, "limit_per_set": limit, "sets": {}}
    loaders = {"planted": planted_cases, "read": read_cases}
    for name in sets:
        cases = loaders[name]()
        chosen = sample(cases, limit)
        started = time.perf_counter()
        answers = judge.judge_many([(c.summary, list(c.sources)) for c in chosen])
        seconds = time.perf_counter() - started
        judged: list[Item] = []
        rules: list[Item] = []
        both: list[Item] = []
        failed = 0
        for case, answer in zip(chosen, answers, strict=True):
            if answer is None:
                failed += 1
                continue
            # A judge's flag is always shown: it has no calibrated confidence of its own.
            said = tuple(replace(f, confidence=1.0) for f in answer)
            found = tuple(f for f in rule_flags(linter, case) if (f.confidence or 0) >= shipped)
            judged.append(Item(case.manual, "held_out", case.fault, said))
            rules.append(Item(case.manual, "held_out", case.fault, found))
            both.append(Item(case.manual, "held_out", case.fault, said + found))
        result["sets"][name] = {
            "summaries": len(chosen),
            "of": len(cases),
            "model_failures": failed,
            "seconds_per_summary": round(seconds / max(len(chosen), 1), 2),
            "judge": scores(judged, 0.0),
            "rules_at_shipped": scores(rules, 0.0),
            "judge_and_rules": scores(both, 0.0),
        }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=80, help="summaries judged per set")
    parser.add_argument("--sets", default="planted,read", help="planted, read or both")
    args = parser.parse_args()
    sets = tuple(s for s in args.sets.split(",") if s)
    print(json.dumps(run(args.limit, sets), indent=1))


if __name__ == "__main__":
    main()
