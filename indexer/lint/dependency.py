"""What an extracted sentence leans on in its source, and how likely leaving that out misleads.

A sentence quoted from the source can mislead without a changed word: "That would allow software
to use both" where "that" was the disabling of something the summary left out; "Execute commands
from filename" where the option it describes (``--rcfile filename``) is the line above it; "Delete
any section Entitled Endorsements" where the list's lead-in ("you must do these things in the
Modified Version:") is gone; "The following modes are supported:" without its list. Each of these
is read off the source around the quote's span, as a few features:

- ``back``: the sentence points back (a connective, a pronoun or demonstrative, "the above": the
  cues the extractive summarizer avoids, :mod:`indexer.summarizers.cues`);
- ``left_out``: the sentence before it in its paragraph exists and the summary does not quote it;
  ``back_left_out`` is both (the case the cue is about); ``definite``: its definite subject ("The
  value …") names something that sentence introduced, which the summary left out;
- ``label``: it opens the entry of a term the summary does not name (a short line before its
  paragraph: an option, a command, a variable); ``label_code`` when that line reads as code (an
  option, an identifier) rather than as a heading;
- ``item``: it is an item of a list whose lead-in ("…:") the summary does not quote;
  ``cell``: it sits in a table row whose first cell the summary does not quote;
- ``lead_in``: it ends in a colon and the summary's next quote is not what it announces;
  ``ahead``: it points at what follows ("described below", "the following") and the next quote
  is not that; ``partial``: the next quote is, but only part of the announced list.

A logistic model over these features (``models/dependency.json``, fitted by
``python -m benchmarks.audit.fit_dependency`` on the sentences of the summary benchmark's tuning
half that the team's judges read: a sentence named misleading is a positive) gives the flag its
confidence: the share of such sentences judged misleading. The flag quotes what was left out.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from indexer.lint.flags import LintFlag
from indexer.summarizers.cues import is_lead_in, leans_back, points_forward, refers_to
from indexer.summarizers.sentences import sentence_spans
from indexer.words import content

MODEL_PATH = Path(__file__).parent / "models" / "dependency.json"
FEATURES = (
    "back", "left_out", "back_left_out", "pronoun_left_out", "definite", "label", "label_code",
    "item", "cell", "lead_in", "ahead", "partial",
)  # fmt: skip
# The features a flag can be raised for (the rest only sharpen its confidence; a definite
# subject naming what the sentence before introduced is as often a new sentence on the same
# thing as a dependent one: on the tuning half it was less often misleading than the average).
_REASONS = (
    "lead_in", "ahead", "partial", "item", "cell", "label", "pronoun_left_out", "back_left_out",
)  # fmt: skip

_BEFORE = 600
_LEAD_IN_REACH = 2000
# A sentence the summary quotes most of counts as quoted.
_COVERED = 0.8
# What may lie between a lead-in and the quote of what it announces: blanks and list markers.
_NEXT = 40
_GAP = " \t\n-*•>|"
_LABEL_WORDS = 8
_ITEM = re.compile(r"^\s*(?:[-*•+]|\d{1,3}[.)]|[A-Za-z][.)]|\(\w{1,3}\))\s+")
_FENCE = re.compile(r"^(?:```|~~~)")
_END = re.compile(r"[.!?:;,]\s*$")
# A pronoun or demonstrative among the first words: the subject of the sentence is elsewhere.
_PRONOUN_OPEN = re.compile(
    r"^(?:\W*[\w-]+\W+){0,3}?(?:this|these|those|that|it|its|they|their|them|such|the latter|"
    r"the former)\b",
    re.IGNORECASE,
)
_DEMONSTRATIVE = re.compile(r"\b(?:this|these)\s+([A-Za-z][\w-]*)", re.IGNORECASE)
# An option, an identifier, a synopsis: a term, not a heading.
_CODE = re.compile(r"^\s*(?:-|`)|[\[\]<>=_(){}$]|^\s*[a-z][\w.-]*(?:\s|$)")


@dataclass(frozen=True)
class Leaning:
    """What an extracted sentence leans on: its features by name and, for each feature that
    holds, the source text the summary left out."""

    features: dict[str, float]
    left_out: dict[str, str]

    @property
    def any(self) -> bool:
        """Whether any cue holds (a sentence without one stands alone)."""
        return any(self.features[n] for n in _REASONS)


def leaning(
    quoted: str,
    text: str,
    start: int,
    cited: Sequence[tuple[int, int]] = (),
    labels: Sequence[str] = (),
) -> Leaning:
    """The features of the quoted sentence that starts at ``start`` in ``text``, given the
    ranges of ``text`` the whole summary cites (``cited``) and the node's headings (``labels``,
    which the reader has)."""
    first = _first_sentence(quoted)
    end = start + len(quoted)
    feats = dict.fromkeys(FEATURES, 0.0)
    gone: dict[str, str] = {}

    colon = quoted.rstrip().endswith(":")
    if colon or (points_forward(quoted) and not is_lead_in(first)):
        announced = _announced(text, end)
        if not _follows(text, end, cited):
            name = "lead_in" if colon else "ahead"
            feats[name] = 1.0
            gone[name] = announced
        elif announced and _share_cited(text, end, cited) < 1.0:
            feats["partial"] = 1.0
            gone["partial"] = announced

    first = _about_the_node(first, labels)
    back = leans_back(first)
    feats["back"] = float(back)
    before = _previous_sentence(text, start)
    if before is not None and not _covered(before, cited):
        previous = text[before[0] : before[1]]
        feats["left_out"] = 1.0
        if back:
            feats["back_left_out"] = 1.0
            gone["back_left_out"] = previous
            if _PRONOUN_OPEN.match(first):
                feats["pronoun_left_out"] = 1.0
                gone["pronoun_left_out"] = previous
        if refers_to(first, previous):
            feats["definite"] = 1.0
            gone["definite"] = previous

    term = _label_before(text, start, labels)
    if term is not None and _head(text[term[0] : term[1]]) & content(first):
        term = None  # the sentence names its term itself
    if term is not None and not _covered(term, cited):
        line = text[term[0] : term[1]]
        feats["label"] = 1.0
        feats["label_code"] = float(bool(_CODE.search(line)))
        gone["label"] = line

    lead = _lead_in(text, start)
    if lead is not None and not _covered(lead, cited):
        feats["item"] = 1.0
        gone["item"] = text[lead[0] : lead[1]]

    cell = _first_cell(text, start)
    if cell is not None and not _covered(cell, cited):
        feats["cell"] = 1.0
        gone["cell"] = text[cell[0] : cell[1]]
    return Leaning(feats, gone)


@dataclass(frozen=True)
class DependencyModel:
    """A logistic model over :data:`FEATURES`: weights by name and an intercept."""

    weights: dict[str, float]
    intercept: float

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> DependencyModel:
        """The model stored at ``path``."""
        data = json.loads(path.read_text())
        if list(data["features"]) != list(FEATURES):
            raise ValueError(
                "dependency model was fitted on other features; "
                "run python -m benchmarks.audit.fit_dependency"
            )
        return cls(dict(data["weights"]), float(data["intercept"]))

    def probability(self, features: dict[str, float]) -> float:
        """The probability that a sentence with ``features`` misleads (three places)."""
        z = self.intercept + sum(self.weights.get(k, 0.0) * v for k, v in features.items())
        return round(1.0 / (1.0 + math.exp(-z)), 3)


@lru_cache(maxsize=1)
def default_dependency_model() -> DependencyModel:
    """The shipped model, read once."""
    return DependencyModel.load()


_MESSAGES = {
    "lead_in": "It announces what follows it in the source, which the summary leaves out: {}",
    "ahead": "It points at what follows it in the source, which the summary leaves out: {}",
    "partial": "It announces a list the summary quotes only in part: {}",
    "item": "It is an item of a list whose lead-in the summary leaves out: {}",
    "cell": "It is a cell of a table row whose first cell the summary leaves out: {}",
    "label": "It describes a term the summary does not name: {}",
    "pronoun_left_out": "Its subject is in the sentence before it, which the summary leaves "
    "out: {}",
    "back_left_out": "It points back at the sentence before it, which the summary leaves out: {}",
}
_RULES = {
    "back_left_out": "back",
    "pronoun_left_out": "back",
    "lead_in": "forward",
    "ahead": "forward",
}
_QUOTE_CHARS = 160


def dependency_flag(
    quoted: str,
    text: str,
    start: int,
    cited: Sequence[tuple[int, int]] = (),
    labels: Sequence[str] = (),
    *,
    model: DependencyModel | None = None,
) -> LintFlag | None:
    """A ``dependency`` flag when the quoted sentence (starting at ``start`` in ``text``) leans
    on what the summary (whose sentences cite the ranges ``cited``) leaves out, with the model's
    confidence and the left-out source text quoted; else None."""
    found = leaning(quoted, text, start, cited, labels)
    if not found.any:
        return None
    model = model or default_dependency_model()
    reason = max(
        (n for n in _REASONS if found.features[n]), key=lambda n: model.weights.get(n, 0.0)
    )
    left_out = _one_line(found.left_out[reason])
    return LintFlag(
        kind="dependency",
        message=_MESSAGES[reason].format(f"“{left_out}”"),
        summary_text=quoted,
        source_text=found.left_out[reason],
        source_quote=left_out,
        rule=f"dependency.{_RULES.get(reason, reason)}",
        confidence=model.probability(found.features),
    )


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _QUOTE_CHARS else line[: _QUOTE_CHARS - 1] + "…"


def _about_the_node(sentence: str, labels: Sequence[str]) -> str:
    """``sentence`` with "this …" made "the …" where the noun is in the node's headings ("this
    License" in the licence's section, "this function" under the function's name): it names the
    node's subject, which the reader has."""
    named = {w for label in labels for w in content(label)}

    def definite(m: re.Match[str]) -> str:
        return "the " + m.group(1) if content(m.group(1)) & named else m.group(0)

    return _DEMONSTRATIVE.sub(definite, sentence)


def _first_sentence(text: str) -> str:
    pieces = sentence_spans(text)
    return pieces[0].text if pieces else text


def _paragraph_start(text: str, start: int) -> int:
    lo = max(0, start - _BEFORE)
    cut = text.rfind("\n\n", lo, start)
    return cut + 2 if cut != -1 else lo


def _previous_sentence(text: str, start: int) -> tuple[int, int] | None:
    """Where the sentence right before ``start`` in the same paragraph (and list item) lies."""
    offset = _paragraph_start(text, start)
    line = text.rfind("\n", offset, start) + 1
    if line and _ITEM.match(text[line:start]):
        offset = max(offset, line)  # an item's first sentence opens it
    pieces = sentence_spans(text[offset:start])
    return (offset + pieces[-1].start, offset + pieces[-1].end) if pieces else None


def _label_before(text: str, start: int, labels: Sequence[str]) -> tuple[int, int] | None:
    """The short line before the paragraph ``start`` opens (a term whose entry it opens), or
    None when ``start`` does not open its paragraph or that line is the node's own heading."""
    para = _paragraph_start(text, start)
    if text[para:start].strip(" \t\n-*•>"):
        return None  # the sentence does not open its paragraph
    prev_end = text.rfind("\n\n", 0, para)
    if prev_end == -1 or para - prev_end > 2 + _BEFORE:
        return None
    block_start = text.rfind("\n\n", 0, prev_end)
    block_start = block_start + 2 if block_start != -1 else 0
    block = text[block_start:prev_end]
    lines = [ln for ln in block.splitlines() if ln.strip()]
    if not lines or len(lines) > 3 or any(len(ln.split()) > _LABEL_WORDS for ln in lines):
        return None
    if any(_END.search(ln) for ln in lines) or lines[0].lstrip().startswith("#"):
        return None  # a sentence, a lead-in or a heading, not a term
    words = content(block)
    if any(words and words == content(label) for label in labels):
        return None  # the node's heading: the reader has it
    first = block_start + len(block) - len(block.lstrip())
    return first, prev_end


def _head(term: str) -> set[str]:
    """The words of a term's first token: the name in "--rcfile filename", "history [n]"."""
    tokens = term.split()
    return content(tokens[0]) if tokens else set()


def _lead_in(text: str, start: int) -> tuple[int, int] | None:
    """The lead-in ("…:") of the list whose item holds ``start``, or None when ``start`` is not
    in a list item."""
    line_start = text.rfind("\n", 0, start) + 1
    if not _ITEM.match(text[line_start:start] + " x"):
        return None
    lo = max(0, line_start - _LEAD_IN_REACH)
    pos = line_start
    while pos > lo:
        prev = text.rfind("\n", lo, pos - 1) + 1
        line = text[prev : pos - 1]
        if line.rstrip().endswith(":"):
            sentences = sentence_spans(line)
            last = sentences[-1] if sentences else None
            return (prev + last.start, prev + last.end) if last else (prev, pos - 1)
        pos = prev
        if pos == 0:
            break
    return None


def _first_cell(text: str, start: int) -> tuple[int, int] | None:
    """The first cell of the table row holding ``start``, when ``start`` is in a later cell."""
    line_start = text.rfind("\n", 0, start) + 1
    prefix = text[line_start:start]
    cells = [m.start() for m in re.finditer(r"\|", prefix)]
    if len(cells) < 2 or not prefix.lstrip().startswith("|"):
        return None
    a, b = cells[0] + 1, cells[1]
    raw = prefix[a:b]
    if not raw.strip():
        return None
    lead = len(raw) - len(raw.lstrip())
    return line_start + a + lead, line_start + a + len(raw.rstrip())


def _covered(where: tuple[int, int], cited: Sequence[tuple[int, int]]) -> bool:
    """Whether the cited ranges hold most of ``where``'s characters."""
    lo, hi = where
    inside = sum(max(0, min(hi, b) - max(lo, a)) for a, b in cited)
    return hi > lo and inside >= _COVERED * (hi - lo)


def _follows(text: str, end: int, cited: Sequence[tuple[int, int]]) -> bool:
    """Whether a cited range starts right after ``end`` (past blank space and list markers)."""
    rest = text[end : end + _NEXT]
    gap = len(rest) - len(rest.lstrip(_GAP))
    return any(end <= a <= end + gap + 1 for a, _ in cited)


def _items(text: str, end: int) -> list[tuple[int, int]]:
    """The items of the list right after ``end`` (its lines, up to a paragraph of prose)."""
    out: list[tuple[int, int]] = []
    pos = end
    fence = _FENCE.match(text[end:].lstrip())
    if fence:  # a code block: its lines up to the closing fence
        open_at = end + len(text[end:]) - len(text[end:].lstrip())
        close = text.find(fence.group(0), open_at + 3)
        stop = close if close != -1 else min(len(text), open_at + 2 * _QUOTE_CHARS)
        return [(a, a + len(line)) for a, line in _lines(text, open_at, stop) if line.strip()]
    while pos < len(text) and len(out) < 50:
        nl = text.find("\n", pos)
        stop = nl if nl != -1 else len(text)
        line = text[pos:stop]
        if line.strip():
            if out and not _ITEM.match(line) and not line.startswith((" ", "\t")):
                break
            out.append((pos + len(line) - len(line.lstrip()), stop))
        elif out and not _ITEM.match(text[stop + 1 : stop + 40] + " "):
            break
        pos = stop + 1
    return out


def _lines(text: str, start: int, stop: int) -> list[tuple[int, str]]:
    """The lines of ``text[start:stop]`` with where each starts."""
    out: list[tuple[int, str]] = []
    pos = start
    for line in text[start:stop].split("\n"):
        out.append((pos, line))
        pos += len(line) + 1
    return out


def _announced(text: str, end: int) -> str:
    """What a lead-in announces, in one line (its list's items joined)."""
    lines = [" ".join(text[a:b].split()) for a, b in _items(text, end)]
    lines = [line for line in lines if not _FENCE.match(line)]
    if lines:
        return "; ".join(lines[:6])
    return " ".join(text[end : end + 2 * _QUOTE_CHARS].split())


def _share_cited(text: str, end: int, cited: Sequence[tuple[int, int]]) -> float:
    """The share of the announced list's items the summary quotes (1 with no list)."""
    items = [i for i in _items(text, end) if _ITEM.match(text[i[0] : i[1]])]
    if not items:
        return 1.0
    return sum(any(a < hi and lo < b for a, b in cited) for lo, hi in items) / len(items)
