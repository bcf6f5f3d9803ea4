"""A summarizer change judged side by side: ``python -m benchmarks.summaries.side_by_side
snapshot|packets|collect|score``.

A half's table mixes verdicts of different rounds and judges; what a change does is measured on
the nodes whose summary it changes, the old and the new summary judged blind in one packet by
the same judge (by the rubric of :mod:`benchmarks.summaries.judging`).

- ``snapshot FILE``: write the store's Overstory summaries of every judged node to ``FILE``
  (JSON), before the change.
- ``packets FILE --version VERSION``: once the store is rebuilt with the change, a packet per
  node whose summary differs from ``FILE``'s and whose pair ``VERSION``'s verdicts do not hold
  yet, the two under letters drawn by a seeded shuffle (``.bench-cache/summaries/side-by-side/``).
- ``collect VERSION``: the judges' verdicts into ``side_by_side_VERSION.jsonl`` (old and new);
  the new summaries' verdicts also into ``judgments.jsonl``, where the halves' tables read them.
- ``score VERSION``: misleading / informative / clean counts, old and new, per half
  (``benchmarks/results/summaries_side_by_side_VERSION.json``).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT
from benchmarks.corpora import CACHE
from benchmarks.summaries.judging import (
    JUDGMENTS,
    load_verdicts,
    manifest_entry,
    render,
    summary_key,
    verdict_lines,
)
from benchmarks.summaries.systems import Sentence, Summary
from indexer.hashing import hash_parts

HERE = Path(__file__).resolve().parent
PACKETS = CACHE / "summaries" / "side-by-side"
JUDGED = CACHE / "summaries" / "side-by-side-judged"
RESULTS = ROOT / "benchmarks" / "results"
HALVES = ("tuning", "held_out", "fresh", "third")


def _dump(summary: Summary) -> list[dict[str, Any]]:
    return [
        {"text": s.text, "spans": [list(p) for p in s.spans], "kind": s.kind}
        for s in summary.sentences
    ]


def _load(rows: list[dict[str, Any]]) -> Summary:
    return Summary(
        "overstory",
        tuple(Sentence(r["text"], tuple((a, b) for a, b in r["spans"]), r["kind"]) for r in rows),
    )


def snapshot(path: Path) -> int:
    """The store's summaries of the judged nodes, by place, into ``path``."""
    from benchmarks.summaries.corpus import judged_nodes
    from benchmarks.summaries.systems import summarize

    out = {n.place: _dump(summarize(n, "overstory")) for n in judged_nodes()}
    path.write_text(json.dumps(out, ensure_ascii=False))
    return len(out)


def _rows(version: str) -> list[dict[str, Any]]:
    path = HERE / f"side_by_side_{version}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def packets(path: Path, version: str) -> int:
    """A packet per node whose summary changed since the snapshot ``path`` and whose pair of
    summaries the side by side of ``version`` has not judged yet (a rule changed again)."""
    from benchmarks.summaries.corpus import judged_nodes
    from benchmarks.summaries.systems import summarize

    before = json.loads(path.read_text())
    judged = {(r["place"], r["key"]) for r in _rows(version)}
    PACKETS.mkdir(parents=True, exist_ok=True)
    for stale in PACKETS.glob("*.md"):
        stale.unlink()
    manifest: dict[str, Any] = {}
    for node in judged_nodes():
        if node.place not in before:
            continue
        old, new = _load(before[node.place]), summarize(node, "overstory")
        if old.text == new.text:
            continue
        pair = {"old": old, "new": new}
        keys = {which: summary_key(node, pair[which]) for which in pair}
        order = sorted(pair, key=lambda k: hash_parts(["side-by-side", node.place, k]))
        letters = dict(zip("AB", order, strict=True))
        packet = f"{node.place}-{hash_parts(list(keys.values()))[:6]}"
        manifest[packet] = manifest_entry(
            node,
            {
                letter: {"summarizer": which, "key": keys[which]}
                for letter, which in letters.items()
            },
        )
        if all((node.place, k) in judged for k in keys.values()):
            continue  # judged side by side already
        text = render(packet, node, {letter: pair[which] for letter, which in letters.items()})
        text = text.replace(str(CACHE / "summaries" / "judged"), str(JUDGED))
        (PACKETS / f"{packet}.md").write_text(text, encoding="utf-8")
    (PACKETS / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return len(list(PACKETS.glob("*.md")))


def collect(version: str) -> int:
    """The verdicts of the side by side into its file, the new summaries' into the judgments:
    for each changed node, its pair's verdicts, from this round's packet or an earlier one."""
    manifest = json.loads((PACKETS / "manifest.json").read_text())
    earlier = {(r["place"], r["key"]): r for r in _rows(version)}
    rows: list[dict[str, Any]] = []
    for packet, info in manifest.items():
        if not (JUDGED / f"{packet}.jsonl").exists():
            pair = [earlier.get((info["place"], s["key"])) for s in info["summaries"].values()]
            rows.extend(r for r in pair if r is not None)
    for info, which, d in verdict_lines(PACKETS, JUDGED):
        rows.append(
            {
                "place": info["place"],
                "manual": info["manual"],
                "split": info["split"],
                "level": info["level"],
                "summarizer": which["summarizer"],
                "key": which["key"],
                "misleading": bool(d["misleading"]),
                "informative": bool(d["informative"]),
                "clean": bool(d["clean"]),
                "note": str(d.get("note", ""))[:200],
                "misleading_sentences": [str(x) for x in d.get("misleading_sentences", [])],
            }
        )
    (HERE / f"side_by_side_{version}.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    known = load_verdicts()
    new = [r for r in rows if r["summarizer"] == "new" and r["key"] not in known]
    with JUDGMENTS.open("a", encoding="utf-8") as f:
        for r in new:
            record = {k: r[k] for k in ("key", "place", "manual", "split", "level")}
            record |= {
                k: r[k] for k in ("misleading", "misleading_sentences", "informative", "clean")
            }
            f.write(json.dumps(record | {"note": r["note"]}, ensure_ascii=False) + "\n")
    return len(rows)


def score(version: str, what: str) -> dict[str, Any]:
    """Counts of misleading, informative and clean summaries, old and new, per half."""
    rows = [
        json.loads(line)
        for line in (HERE / f"side_by_side_{version}.jsonl").read_text().splitlines()
        if line.strip()
    ]
    table: dict[str, Any] = {}
    for half in (*HALVES, "all"):
        mine = [r for r in rows if half in ("all", r["split"])]
        counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for r in mine:
            c = counts[r["summarizer"]]
            c["nodes"] += 1
            for k in ("misleading", "informative", "clean"):
                c[k] += int(r[k])
        table[half] = {k: dict(v) for k, v in counts.items()}
    result = {"what": what, "version": version, "halves": table}
    out = RESULTS / f"summaries_side_by_side_{version}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("command", choices=["snapshot", "packets", "collect", "score"])
    parser.add_argument("arg", help="the snapshot file, or the change's version (v15)")
    parser.add_argument("--what", default="", help="what changed (score)")
    parser.add_argument("--version", default="", help="the change's version (packets)")
    args = parser.parse_args()
    if args.command == "snapshot":
        print(f"{snapshot(Path(args.arg))} summaries in {args.arg}")
    elif args.command == "packets":
        n = packets(Path(args.arg), args.version)
        print(f"{n} changed nodes to judge in {PACKETS}")
    elif args.command == "collect":
        print(f"{collect(args.arg)} verdicts collected")
    else:
        print(json.dumps(score(args.arg, args.what), indent=1))


if __name__ == "__main__":
    main()
