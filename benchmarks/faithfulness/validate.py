"""Write a new planted-fault set: `python -m benchmarks.faithfulness.validate`.

``paragraphs FILE [START END]`` prints a manual page's paragraphs as the benchmark numbers them,
each with its hash and its labels (the headings down to it), to write triples from.
``check FILE.json`` validates a set of triples before it is committed: every passage's hash, the
fault's text occurring exactly once in the faithful summary and changing it, known kinds and
styles, unique ids, chapter-style triples over two paragraphs or more, and no split assigned
yet (``--committed`` checks a committed set, splits and all). ``split FILE.json SEED TUNING
HELD_OUT`` assigns the halves once, per kind, by the sha256 of the seed and each id,
alternating, and records the seed in the file.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
from pathlib import Path
from typing import Any

from benchmarks.faithfulness.source import labels, paragraphs, passage, text_hash

KINDS = ("condition", "number", "negation", "absolute")
STYLES = ("paraphrase", "condensed", "chapter")


def problems(triple: dict[str, Any], *, committed: bool = False) -> list[str]:
    """What is wrong with one triple (empty when it is valid); ``committed`` for a triple of a
    set already split."""
    out: list[str] = []
    if triple.get("kind") not in KINDS:
        out.append(f"kind must be one of {', '.join(KINDS)}")
    if triple.get("style") not in STYLES:
        out.append(f"style must be one of {', '.join(STYLES)}")
    if "split" in triple and not committed:
        out.append("leave 'split' out: it is assigned once, when the set is committed")
    if "split" not in triple and committed:
        out.append("no split")
    refs = triple.get("passages") or []
    for ref in refs:
        try:
            text = passage(triple["file"], ref["paragraph"])
        except (OSError, KeyError, IndexError) as exc:
            out.append(f"cannot read paragraph {ref.get('paragraph')}: {exc}")
            continue
        if text_hash(text) != ref.get("sha256_16"):
            out.append(f"paragraph {ref['paragraph']}: hash {text_hash(text)} expected")
    if not refs:
        out.append("no passages")
    if triple.get("style") == "chapter" and len(refs) < 2:
        out.append("a chapter-style triple spans 2-4 paragraphs")
    fault = triple.get("fault") or {}
    found = str(triple.get("faithful", "")).count(str(fault.get("replace", "")))
    if not fault.get("replace") or found != 1:
        out.append(f"fault.replace occurs {found} times in the faithful summary (must be once)")
    if fault.get("replace") == fault.get("with"):
        out.append("the fault changes nothing")
    return out


def check(path: Path, *, committed: bool = False) -> dict[str, Any]:
    """Every triple's problems, by id, and the counts per kind and style."""
    triples = json.loads(path.read_text())["triples"]
    ids = collections.Counter(t.get("id") for t in triples)
    found: dict[str, list[str]] = {}
    for t in triples:
        dup = ["duplicate id"] if ids[t.get("id")] > 1 else []
        issues = problems(t, committed=committed) + dup
        if issues:
            found[str(t.get("id"))] = issues
    return {
        "triples": len(triples),
        "problems": found,
        "kinds": dict(collections.Counter(t.get("kind") for t in triples)),
        "styles": dict(collections.Counter(t.get("style") for t in triples)),
    }


def split(path: Path, seed: str, tuning: str, held_out: str) -> dict[str, int]:
    """Assign each triple of ``path`` to ``tuning`` or ``held_out``: per kind, in the order of
    sha256(seed + id), alternating; rewrites the file with the seed recorded."""
    data = json.loads(path.read_text())
    by_kind: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for t in data["triples"]:
        by_kind[t["kind"]].append(t)
    for group in by_kind.values():
        group.sort(key=lambda t: hashlib.sha256((seed + t["id"]).encode()).hexdigest())
        for i, t in enumerate(group):
            t["split"] = tuning if i % 2 == 0 else held_out
    data["split_seed"] = seed
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return dict(collections.Counter(t["split"] for t in data["triples"]))


def main() -> None:
    """List a page's paragraphs, check a set of triples, or split it."""
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("paragraphs", help="a page's numbered paragraphs with their hashes")
    show.add_argument("file")
    show.add_argument("start", nargs="?", type=int, default=0)
    show.add_argument("end", nargs="?", type=int)
    validate = sub.add_parser("check", help="validate a set of triples")
    validate.add_argument("triples", type=Path)
    validate.add_argument("--committed", action="store_true", help="a set already split")
    halves = sub.add_parser("split", help="assign the tuning and held-out halves once")
    halves.add_argument("triples", type=Path)
    halves.add_argument("seed")
    halves.add_argument("tuning")
    halves.add_argument("held_out")
    args = parser.parse_args()
    if args.command == "split":
        print(json.dumps(split(args.triples, args.seed, args.tuning, args.held_out)))
        return
    if args.command == "paragraphs":
        texts = paragraphs(args.file)
        for i in range(args.start, min(args.end or len(texts), len(texts))):
            print(f"[{i}] sha256_16={text_hash(texts[i])} labels={labels(args.file, i)}")
            print(f"{texts[i]}\n")
        return
    result = check(args.triples, committed=args.committed)
    for tid, issues in result["problems"].items():
        print(f"{tid}: {'; '.join(issues)}")
    print(json.dumps({k: v for k, v in result.items() if k != "problems"}))
    raise SystemExit(1 if result["problems"] else 0)


if __name__ == "__main__":
    main()
