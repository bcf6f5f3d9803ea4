"""Blind judging: packets for the judges, their verdicts collected, verdicts reused.

A packet is one node: what it contains, its source text, and the summaries of it not judged yet,
each under a letter drawn by a seeded shuffle (the system that wrote it is in a manifest the
judges do not read). A verdict is keyed by the hash of the node's source and of the summary's
text, so a summary written again unchanged keeps its verdict and two systems that write the same
summary are judged once. Verdicts live in ``judgments.jsonl`` beside this module (no manual text:
only keys, booleans and a few words of note); packets and the manifest are in the cache.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.corpora import CACHE
from benchmarks.summaries.corpus import Node
from benchmarks.summaries.systems import Summary
from indexer.hashing import hash_parts

JUDGMENTS = Path(__file__).resolve().parent / "judgments.jsonl"
PACKETS = CACHE / "summaries" / "packets"
JUDGED = CACHE / "summaries" / "judged"
RUBRIC = Path(__file__).resolve().parent / "RUBRIC.md"
_LETTERS = "ABCDEFGH"
_FULL_SOURCE = 9000  # characters of source shown whole; a longer node is shown part by part
_OWN = 2500
_PER_PART = 600
_CONTEXT = 220


def summary_key(node: Node, summary: Summary) -> str:
    """What a verdict is keyed by: the node's source and the summary's sentences."""
    return hash_parts(["judged", node.source_hash, *(s.text for s in summary.sentences)])[:16]


@dataclass(frozen=True)
class Verdict:
    """A judge's three answers about one summary."""

    misleading: bool
    informative: bool
    clean: bool
    note: str = ""


def load_verdicts(path: Path = JUDGMENTS) -> dict[str, Verdict]:
    """Stored verdicts by summary key (the last one of a key wins)."""
    out: dict[str, Verdict] = {}
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            out[d["key"]] = Verdict(
                bool(d["misleading"]), bool(d["informative"]), bool(d["clean"]), d.get("note", "")
            )
    return out


def write_packets(items: list[tuple[Node, list[Summary]]], verdicts: dict[str, Verdict]) -> int:
    """Write a packet per node holding summaries without a verdict; the number written."""
    PACKETS.mkdir(parents=True, exist_ok=True)
    manifest_path = PACKETS / "manifest.json"
    manifest: dict[str, Any] = (
        json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    )
    written = 0
    for node, summaries in items:
        todo: dict[str, Summary] = {}
        for s in summaries:
            key = summary_key(node, s)
            if key not in verdicts and s.sentences:
                todo.setdefault(key, s)
        if not todo:
            continue
        keys = sorted(todo, key=lambda k: hash_parts([node.place, k]))
        letters = dict(zip(_LETTERS, keys, strict=False))
        packet = f"{node.place}-{hash_parts(keys)[:6]}"
        manifest[packet] = manifest_entry(node, letters)
        (PACKETS / f"{packet}.md").write_text(
            render(packet, node, {letter: todo[k] for letter, k in letters.items()}),
            encoding="utf-8",
        )
        written += 1
    manifest_path.write_text(json.dumps(manifest, indent=1))
    return written


def render(packet: str, node: Node, summaries: dict[str, Summary]) -> str:
    """A packet as the judge reads it."""
    lines = [
        f"# Packet {packet}",
        "",
        f"Judge by the rubric in {RUBRIC.name}. Write your verdicts, one JSON line per summary,",
        f"to `{JUDGED / (packet + '.jsonl')}`.",
        "",
        f"Manual: {node.manual.name} ({node.manual.generator}); part: {node.level}; "
        f"heading path: {' > '.join(node.heading_path) or '(untitled)'}",
        "",
        "## What this part contains",
        "",
        *_outline(node.tree),
        "",
        "## Its source text",
        "",
        _source(node),
        "",
        "## Summaries to judge",
    ]
    for letter, summary in summaries.items():
        lines += ["", f"### Summary {letter}", ""]
        for i, sentence in enumerate(summary.sentences, 1):
            lines.append(f"{letter}{i}. {sentence.text}")
            for a, b in sentence.spans[:3]:
                lines.append(f"    from: «{_context(node.text, a, b)}»")
    return "\n".join(lines) + "\n"


def _outline(tree: dict[str, Any], depth: int = 0) -> list[str]:
    out: list[str] = []
    for child in tree.get("children", []):
        if child["level"] == "passage":
            continue
        out.append(f"{'  ' * depth}- {child.get('title') or '(group of passages)'}")
        if depth < 1:
            out.extend(_outline(child, depth + 1))
    if depth == 0 and not out:
        return ["(no parts: the text below is all of it)"]
    return out


def _source(node: Node) -> str:
    text = node.source
    if len(text) <= _FULL_SOURCE:
        return text
    tree = node.tree
    children = [c for c in tree.get("children", []) if c["level"] != "passage"]
    first_child = children[0]["char_start"] if children else node.char_end
    own = node.text[node.char_start : min(first_child, node.char_start + _OWN)]
    parts = [
        own.rstrip(),
        "",
        f"[… the part's text is {len(text):,} characters; shown: its "
        f"opening, then the first {_PER_PART} characters of each part …]",
    ]
    for c in children:
        body = node.text[c["char_start"] : min(c["char_end"], c["char_start"] + _PER_PART)]
        parts += ["", f"--- {c.get('title') or '(group)'} ---", body.rstrip() + " […]"]
    return "\n".join(parts)


def _context(text: str, a: int, b: int) -> str:
    start = max(0, a - _CONTEXT)
    end = min(len(text), b + _CONTEXT)
    quoted = text[a:b]
    if len(quoted) > 900:
        quoted = quoted[:450] + " […] " + quoted[-300:]
    out = f"…{text[start:a]}⟦{quoted}⟧{text[b:end]}…"
    return " ".join(out.split())


def manifest_entry(node: Node, summaries: dict[str, Any]) -> dict[str, Any]:
    """A packet's entry in its manifest: where its node is, and what each summary letter
    stands for (a verdict's key, or the summarizer and key of a side by side)."""
    return {
        "place": node.place,
        "manual": node.manual.name,
        "split": node.manual.split,
        "level": node.level,
        "summaries": summaries,
    }


def verdict_lines(
    packets: Path, judged: Path
) -> Iterator[tuple[dict[str, Any], Any, dict[str, Any]]]:
    """Each verdict line the judges wrote for a packet of ``packets``' manifest, with the
    packet's manifest entry and what its summary letter stands for there."""
    manifest_path = packets / "manifest.json"
    if not manifest_path.exists() or not judged.exists():
        return
    manifest = json.loads(manifest_path.read_text())
    for path in sorted(judged.glob("*.jsonl")):
        info = manifest.get(path.stem)
        if info is None:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                d = json.loads(line)
                which = info["summaries"].get(str(d.get("summary", "")).strip())
                if which is not None:
                    yield info, which, d


def collect() -> int:
    """Append the judges' verdicts to :data:`JUDGMENTS`; the number of new verdicts."""
    known = load_verdicts()
    new: list[dict[str, Any]] = []
    for info, key, d in verdict_lines(PACKETS, JUDGED):
        if key in known:
            continue
        record = {
            "key": key,
            "place": info["place"],
            "manual": info["manual"],
            "split": info["split"],
            "level": info["level"],
            "misleading": bool(d["misleading"]),
            "misleading_sentences": [str(x) for x in d.get("misleading_sentences", [])],
            "informative": bool(d["informative"]),
            "clean": bool(d["clean"]),
            "note": str(d.get("note", ""))[:200],
        }
        new.append(record)
        known[key] = Verdict(record["misleading"], record["informative"], record["clean"])
    if new:
        with JUDGMENTS.open("a", encoding="utf-8") as f:
            for record in new:
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
    return len(new)
