"""The judged summary benchmark: ``python -m benchmarks.summaries.run packets|collect|score``.

- ``packets [--split tuning|held_out|fresh|all] [--systems a,b]``: ingest the manuals (once),
  sample the nodes, summarize them with each system and write a blind packet per node for the
  summaries that have no verdict yet (``.bench-cache/summaries/packets/``).
- ``collect``: add the judges' verdicts (``.bench-cache/summaries/judged/``) to
  ``benchmarks/summaries/judgments.jsonl``.
- ``score [--split ...]``: the share of misleading, informative and clean summaries per system,
  split and level, written to ``benchmarks/results/summaries.json`` and ``summaries.md``.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from typing import Any

from benchmarks.common import ROOT
from benchmarks.summaries.corpus import Node, judged_nodes
from benchmarks.summaries.judging import (
    collect,
    load_verdicts,
    summary_key,
    write_packets,
)
from benchmarks.summaries.manuals import MANUALS, SPLITS
from benchmarks.summaries.systems import SYSTEMS, Summary, summarize
from indexer.tokens import count_tokens

RESULTS = ROOT / "benchmarks" / "results"
TARGETS = {"misleading": 0.05, "informative": 0.85, "clean": 0.95}


def _nodes(split: str) -> list[Node]:
    manuals = tuple(m for m in MANUALS if split == "all" or m.split == split)
    return judged_nodes(manuals)


def _summaries(nodes: list[Node], systems: list[str]) -> list[tuple[Node, list[Summary]]]:
    return [(n, [summarize(n, s) for s in systems]) for n in nodes]


def packets(split: str, systems: list[str]) -> None:
    """Write the packets of the summaries without a verdict."""
    items = _summaries(_nodes(split), systems)
    written = write_packets(items, load_verdicts())
    print(f"{len(items)} nodes, {written} packets to judge")


def score(split: str, systems: list[str]) -> dict[str, Any]:
    """Shares per system, split and level, from the stored verdicts."""
    verdicts = load_verdicts()
    items = _summaries(_nodes(split), systems)
    table: dict[str, Any] = {}
    for half in SPLITS:
        rows: dict[str, Any] = {}
        for system in systems:
            counts: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
            for node, summaries in items:
                if node.manual.split != half:
                    continue
                summary = next(s for s in summaries if s.system == system)
                for level in ("all", node.level):
                    c = counts[level]
                    c["nodes"] += 1
                    c["sentences"] += len(summary.sentences)
                    c["with_spans"] += sum(1 for s in summary.sentences if s.spans)
                    c["tokens"] += count_tokens(summary.text)
                    v = verdicts.get(summary_key(node, summary))
                    if v is None:
                        continue
                    c["judged"] += 1
                    c["misleading"] += v.misleading
                    c["informative"] += v.informative
                    c["clean"] += v.clean
            rows[system] = {level: _shares(c) for level, c in counts.items()}
        if any(r for r in rows.values()):
            table[half] = rows
    return table


def _shares(c: dict[str, float]) -> dict[str, Any]:
    judged = c["judged"]
    out: dict[str, Any] = {
        "nodes": int(c["nodes"]),
        "judged": int(judged),
        "sentences_with_spans": round(c["with_spans"] / c["sentences"], 4)
        if c["sentences"]
        else None,
        "mean_tokens": round(c["tokens"] / c["nodes"], 1) if c["nodes"] else None,
    }
    for k in ("misleading", "informative", "clean"):
        out[k] = round(c[k] / judged, 4) if judged else None
    return out


def write(table: dict[str, Any]) -> None:
    """``summaries.json`` and a Markdown table beside it."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    manuals = [
        {"name": m.name, "package": m.package, "generator": m.generator, "split": m.split}
        for m in MANUALS
    ]
    (RESULTS / "summaries.json").write_text(
        json.dumps({"targets": TARGETS, "manuals": manuals, "results": table}, indent=1) + "\n"
    )
    lines = ["# Summaries judged against their sources", ""]
    for half, rows in table.items():
        lines += [
            f"## {half}",
            "",
            "| system | level | judged / nodes | misleading | informative | clean | spans"
            " | tokens |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for system, levels in rows.items():
            for level, r in sorted(levels.items(), key=lambda kv: kv[0] != "all"):
                lines.append(
                    f"| {system} | {level} | {r['judged']} / {r['nodes']} | {_pct(r['misleading'])}"
                    f" | {_pct(r['informative'])} | {_pct(r['clean'])} |"
                    f" {_pct(r['sentences_with_spans'])} | {r['mean_tokens']} |"
                )
        lines.append("")
    (RESULTS / "summaries.md").write_text("\n".join(lines))


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f} %"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("command", choices=["packets", "collect", "score"])
    parser.add_argument("--split", default="all", choices=["all", *SPLITS])
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    args = parser.parse_args()
    systems = [s for s in args.systems.split(",") if s]
    if args.command == "packets":
        packets(args.split, systems)
    elif args.command == "collect":
        print(f"{collect()} new verdicts")
    else:
        table = score(args.split, systems)
        write(table)
        print((RESULTS / "summaries.md").read_text())


if __name__ == "__main__":
    main()
