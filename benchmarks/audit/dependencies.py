"""The read fault set's dependency verdicts: ``python -m benchmarks.audit.dependencies
packets|collect``.

The judges of the summary benchmark answer whether a summary *misleads*. The audit is also
asked to find what an extracted sentence depends on that the summary left out (its antecedent,
its list, its lead-in): a fault a reviewer corrects whether or not a reader would be misled by
it. Those judges passed many such sentences (a lead-in quoted without the example it announces)
as not misleading, and named some of them unclean, some not. So the same summaries are judged
once more, blind to the lint and to the earlier verdicts, on that one question
(:data:`RUBRIC`): does any sentence depend on something the summary leaves out?

- ``packets [--halves held_out,third] [--systems overstory]``: a packet per node holding its
  judged summaries (every system's) without a dependency verdict
  (``.bench-cache/summaries/dependency-packets/``).
- ``collect``: add the judges' verdicts (``.bench-cache/summaries/dependency-judged/``) to
  :data:`VERDICTS`, keyed as the summary benchmark keys its verdicts.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from benchmarks.corpora import CACHE
from indexer.hashing import hash_parts

HERE = Path(__file__).resolve().parent
VERDICTS = HERE / "dependencies.jsonl"
RUBRIC = HERE / "DEPENDENCY_RUBRIC.md"
PACKETS = CACHE / "summaries" / "dependency-packets"
JUDGED = CACHE / "summaries" / "dependency-judged"
_LETTERS = "ABCDEFGH"


def load() -> dict[str, bool]:
    """Whether each judged summary (by key) holds a sentence depending on something left out."""
    if not VERDICTS.exists():
        return {}
    out: dict[str, bool] = {}
    for line in VERDICTS.read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            out[d["key"]] = bool(d["dependent"])
    return out


def packets(halves: tuple[str, ...], systems: tuple[str, ...] | None = None) -> int:
    """Write a packet per node whose judged summaries (of ``systems``, default every one)
    lack a dependency verdict."""
    from benchmarks.summaries.corpus import judged_nodes
    from benchmarks.summaries.judging import (
        load_verdicts,
        manifest_entry,
        render,
        summary_key,
    )
    from benchmarks.summaries.systems import SYSTEMS, Summary, summarize

    judged, known = load_verdicts(), load()
    PACKETS.mkdir(parents=True, exist_ok=True)
    manifest_path = PACKETS / "manifest.json"
    manifest: dict[str, Any] = (
        json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    )
    written = 0
    for node in judged_nodes():
        if node.manual.split not in halves:
            continue
        todo: dict[str, Summary] = {}
        for system in systems or SYSTEMS:
            summary = summarize(node, system)
            key = summary_key(node, summary)
            if key in judged and key not in known and summary.sentences:
                todo.setdefault(key, summary)
        if not todo:
            continue
        keys = sorted(todo, key=lambda k: hash_parts(["dependency", node.place, k]))
        letters = dict(zip(_LETTERS, keys, strict=False))
        packet = f"{node.place}-{hash_parts(keys)[:6]}"
        manifest[packet] = manifest_entry(node, letters)
        text = render(packet, node, {letter: todo[k] for letter, k in letters.items()})
        head, _, rest = text.partition("## What this part contains")
        intro = (
            f"# Packet {packet}\n\nJudge by the rubric in {RUBRIC.name}. Write your verdicts, one "
            f"JSON line per summary, to `{JUDGED / (packet + '.jsonl')}`.\n\n"
            + head[head.index("Manual: ") :]
        )
        (PACKETS / f"{packet}.md").write_text(
            intro + "## What this part contains" + rest, encoding="utf-8"
        )
        written += 1
    manifest_path.write_text(json.dumps(manifest, indent=1))
    return written


def collect() -> int:
    """Append the judges' verdicts to :data:`VERDICTS`; the number of new verdicts."""
    from benchmarks.summaries.judging import verdict_lines

    known = load()
    new: list[dict[str, Any]] = []
    for info, key, d in verdict_lines(PACKETS, JUDGED):
        if key in known:
            continue
        known[key] = bool(d["dependent"])
        new.append(
            {
                "key": key,
                "place": info["place"],
                "manual": info["manual"],
                "split": info["split"],
                "dependent": bool(d["dependent"]),
                "sentences": [str(x) for x in d.get("sentences", [])],
                "kinds": [str(x) for x in d.get("kinds", [])],
                "note": str(d.get("note", ""))[:200],
            }
        )
    if new:
        with VERDICTS.open("a", encoding="utf-8") as f:
            for record in new:
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
    return len(new)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("command", choices=["packets", "collect"])
    parser.add_argument("--halves", default="held_out,third")
    parser.add_argument("--systems", default="", help="only these systems' summaries")
    args = parser.parse_args()
    if args.command == "packets":
        n = packets(tuple(args.halves.split(",")), tuple(filter(None, args.systems.split(","))))
        print(f"{n} packets to judge in {PACKETS}")
    else:
        print(f"{collect()} new verdicts in {VERDICTS}")


if __name__ == "__main__":
    main()
