"""Sentence splitters compared on real manual prose: Overstory's regex splitter against pysbd
(rule-based, a port of the Golden Rules splitter) and blingfire (Microsoft's finite-state
tokenizer), two maintained ones.

The sample is paragraphs (blocks between blank lines) of the text Overstory's own parsers
extract from Debian's HTML manuals, drawn with a fixed seed (:func:`sample`). The gold
boundaries in ``benchmarks/sentences/gold.json`` were made once: where all three splitters
agreed that was taken, and every disagreement was settled by reading it (a boundary is where a
sentence ends in standard English orthography; abbreviations, version numbers, file names,
"e.g.", "et al.", "No. 3" and code identifiers ending in a period are none). The gold file keeps
only the manual file, the paragraph's SHA-256 and the boundary offsets, never the manuals'
text; the text is parsed again here, and a paragraph the parsers no longer produce is counted
as ``missing``, not scored.

A boundary is the offset where a sentence ends (trailing space excluded), the paragraph's own
end left out. Per splitter and half (``tuning``, ``held_out``, split by manual before any score
was looked at): boundary precision, recall and F1, and ``exact``, the share of paragraphs split
exactly as the gold. ``speed``: sentences per second over the whole sample, relative to ours,
measured in the same run.

Writes ``benchmarks/results/sentences.json``. ``python -m benchmarks.bench_sentences sample``
prints the sample with each splitter's boundaries, for (re)adjudicating the gold.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT
from indexer.errors import OverstoryError
from indexer.parsers.registry import parse_bytes
from indexer.summarizers.sentences import sentence_spans

GOLD = ROOT / "benchmarks" / "sentences" / "gold.json"
RESULTS = ROOT / "benchmarks" / "results" / "sentences.json"
SEED = 34
PER_MANUAL = 40
CANDIDATES = 200  # paragraphs gathered per manual before drawing PER_MANUAL of them
DOCS = Path("/usr/share/doc")
# manual -> (root under /usr/share, half); the halves were fixed before any score was seen.
MANUALS: dict[str, tuple[str, str]] = {
    "mpfr": ("doc/libmpfr-doc/mpfr.html", "tuning"),
    "postgresql": ("doc/postgresql-doc-15/html", "tuning"),
    "cmake": ("doc/cmake-data/html/manual", "tuning"),
    "bind9": ("doc/bind9-doc/arm", "tuning"),
    "bash": ("doc/bash/bashref.html", "held_out"),
    "git": ("doc/git-doc/user-manual.html", "held_out"),
    "ntpsec": ("doc/ntpsec-doc/html", "held_out"),
    "debian-reference": ("debian-reference", "held_out"),
}
HALVES = ("tuning", "held_out")

_BLOCKS = re.compile(r"\n[ \t]*\n")
_SENTENCE_END = re.compile(r"[.!?][\"')\]’”]?\s+\S")
_WORD = re.compile(r"^[(\"'‘“]?[A-Za-z][A-Za-z'’-]*[.,;:!?)\"'’”]*$")
_CODE_LINE = re.compile(r"(?m)^(?: {4}|\t)|[{};]\s*$|^\s*[$#%>] ")


@dataclass(frozen=True)
class Paragraph:
    """One sampled paragraph: where it came from and its text."""

    manual: str
    file: str  # relative to /usr/share
    sha256: str
    text: str

    @property
    def half(self) -> str:
        return MANUALS[self.manual][1]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*") if p.suffix in (".html", ".htm") and p.is_file())


_FENCE_LINE = re.compile(r"(?m)^(?:```|~~~)\n?")


def paragraphs(path: Path) -> list[str]:
    """The blocks between blank lines of the text Overstory's parser extracts from ``path``."""
    try:
        text = parse_bytes(path.read_bytes(), filename=path.name).text
    except OverstoryError:
        return []
    # The fences the reader puts around preformatted text are markup: the sample was drawn
    # from the text without them, and a block is judged prose or code by its own lines.
    text = _FENCE_LINE.sub("", text)
    return [b.strip() for b in _BLOCKS.split(text) if b.strip()]


def is_prose(block: str) -> bool:
    """A block worth sampling: prose with at least two sentence-ish pieces, no code or table.

    Deliberately splitter-neutral: "a sentence end followed by more text" is counted with a
    plain regex, not with any of the splitters measured.
    """
    if not 60 <= len(block) <= 1500 or not _SENTENCE_END.search(block):
        return False
    if _CODE_LINE.search(block) or sum("|" in line for line in block.splitlines()) >= 2:
        return False  # code, or a table's rows
    tokens = block.split()
    return len(tokens) >= 12 and sum(bool(_WORD.match(t)) for t in tokens) >= 0.7 * len(tokens)


def sample() -> list[Paragraph]:
    """PER_MANUAL prose paragraphs from each manual, drawn with the fixed seed."""
    out: list[Paragraph] = []
    for manual, (root, _) in MANUALS.items():
        rng = random.Random(f"{SEED}:{manual}")
        files = _files(Path("/usr/share") / root)
        rng.shuffle(files)
        found: dict[str, Paragraph] = {}
        for path in files:
            rel = str(path.relative_to("/usr/share"))
            for block in paragraphs(path):
                if is_prose(block):
                    found.setdefault(_sha(block), Paragraph(manual, rel, _sha(block), block))
            if len(found) >= CANDIDATES:
                break
        pool = list(found.values())
        out += rng.sample(pool, min(PER_MANUAL, len(pool)))
    return out


# --- the splitters: each gives the offsets where its sentences end, the paragraph's end left out


def _ends(text: str, spans: Iterator[tuple[int, int]]) -> list[int]:
    last = len(text.rstrip())
    ends = {len(text[:end].rstrip()) for _, end in spans}
    return sorted(e for e in ends if 0 < e < last)


def ours(text: str) -> list[int]:
    return _ends(text, ((p.start, p.end) for p in sentence_spans(text)))


def _pysbd() -> Callable[[str], list[int]]:
    import pysbd

    segmenter = pysbd.Segmenter(language="en", clean=False, char_span=True)

    def split(text: str) -> list[int]:
        return _ends(text, ((s.start, s.end) for s in segmenter.segment(text)))

    return split


def _blingfire() -> Callable[[str], list[int]]:
    from blingfire import text_to_sentences_and_offsets

    def split(text: str) -> list[int]:
        return _ends(text, iter(text_to_sentences_and_offsets(text)[1]))

    return split


def splitters() -> dict[str, Callable[[str], list[int]]]:
    return {"overstory": ours, "pysbd": _pysbd(), "blingfire": _blingfire()}


# --- the gold and the scores


def load_gold() -> tuple[list[tuple[Paragraph, list[int]]], int]:
    """The gold paragraphs with their boundaries, and how many the parsers no longer produce."""
    entries = json.loads(GOLD.read_text(encoding="utf-8"))["paragraphs"]
    texts: dict[str, dict[str, str]] = {}
    out: list[tuple[Paragraph, list[int]]] = []
    missing = 0
    for e in entries:
        if e["file"] not in texts:
            blocks = paragraphs(Path("/usr/share") / e["file"])
            texts[e["file"]] = {_sha(b): b for b in blocks}
        text = texts[e["file"]].get(e["sha256"])
        if text is None:
            missing += 1
            continue
        out.append((Paragraph(e["manual"], e["file"], e["sha256"], text), e["boundaries"]))
    return out, missing


def score(found: list[list[int]], gold: list[list[int]]) -> dict[str, Any]:
    """Boundary precision, recall and F1, and the share of paragraphs split exactly right."""
    tp = fp = fn = exact = 0
    for f, g in zip(found, gold, strict=True):
        fs, gs = set(f), set(g)
        tp += len(fs & gs)
        fp += len(fs - gs)
        fn += len(gs - fs)
        exact += fs == gs
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "paragraphs": len(gold),
        "gold_boundaries": tp + fn,
        "false_boundaries": fp,
        "missed_boundaries": fn,
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(f1, 4),
        "exact": round(exact / len(gold), 4) if gold else 0.0,
    }


def _speed(split: Callable[[str], list[int]], texts: list[str], rounds: int = 5) -> float:
    """Sentences per second over ``texts``: the best of ``rounds`` passes."""
    best = float("inf")
    sentences = 0
    for _ in range(rounds):
        started = time.perf_counter()
        sentences = sum(len(split(t)) + 1 for t in texts)
        best = min(best, time.perf_counter() - started)
    return sentences / best


def main() -> dict[str, Any]:
    gold, missing = load_gold()
    result: dict[str, Any] = {
        "sample": {
            "seed": SEED,
            "paragraphs": len(gold),
            "missing": missing,
            "manuals": {m: {"root": r, "half": h} for m, (r, h) in MANUALS.items()},
            "gold_boundaries": sum(len(b) for _, b in gold),
        },
        "splitters": {},
    }
    texts = [p.text for p, _ in gold]
    speeds: dict[str, float] = {}
    for name, split in splitters().items():
        entry: dict[str, Any] = {}
        for half in HALVES:
            rows = [(p, b) for p, b in gold if p.half == half]
            entry[half] = score([split(p.text) for p, _ in rows], [b for _, b in rows])
        speeds[name] = _speed(split, texts)
        entry["sentences_per_second"] = round(speeds[name])
        result["splitters"][name] = entry
    for name, entry in result["splitters"].items():
        entry["speed_vs_overstory"] = round(speeds[name] / speeds["overstory"], 3)
    return result


def _print_sample() -> None:
    """Each sampled paragraph with where the three splitters end sentences (for the gold)."""
    split = splitters()
    for p in sample():
        found = {name: fn(p.text) for name, fn in split.items()}
        print(json.dumps({"manual": p.manual, "file": p.file, "sha256": p.sha256, **found}))


if __name__ == "__main__":
    if sys.argv[1:] == ["sample"]:
        _print_sample()
    else:
        print(json.dumps(main(), indent=2))
