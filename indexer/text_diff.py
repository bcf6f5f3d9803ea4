"""How one text became another, sentence by sentence and then word by word.

The two texts are cut into sentence units that tile them exactly (the whitespace and list
marker before a sentence are part of it) and matched on their whitespace-collapsed words; where
sentences were replaced, the words of the replaced run are matched again, so that a changed
value shows as one word removed and one added, not as a whole sentence. Matching in two steps
keeps the cost near linear for long bodies (a word-level match over a whole chapter compares
every "the" with every other).

The result is a list of :class:`DiffOp`: ``equal`` and ``added`` runs joined give the new text
exactly; ``equal`` and ``removed`` runs give the old one (with the new text's whitespace).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from indexer.summarizers.sentences import sentence_spans

DIFF_OPS = ("equal", "removed", "added")
_TOKEN = re.compile(r"\s+|\S+\s*")


@dataclass(frozen=True)
class DiffOp:
    """One run of a diff: text both sides share (``equal``), or only the old or new one has."""

    op: str  # equal | removed | added
    text: str

    def words(self) -> int:
        """The number of words in the run."""
        return len(self.text.split())


def sentence_units(text: str) -> list[str]:
    """``text`` cut into sentences that, joined, give ``text`` back exactly."""
    cuts = [piece.end for piece in sentence_spans(text)][:-1]
    units: list[str] = []
    start = 0
    for end in cuts:
        # A piece without a letter (a list item's number) goes with the sentence after it.
        if end > start and any(ch.isalpha() for ch in text[start:end]):
            units.append(text[start:end])
            start = end
    units.append(text[start:])
    return [u for u in units if u]


def diff_texts(old: str, new: str) -> list[DiffOp]:
    """The runs that turn ``old`` into ``new`` (see the module doc)."""
    a, b = sentence_units(old), sentence_units(new)
    ops: list[DiffOp] = []
    matcher = difflib.SequenceMatcher(a=_keys(a), b=_keys(b), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            ops.append(DiffOp("equal", "".join(b[j1:j2])))
        elif tag == "replace":
            ops.extend(diff_words("".join(a[i1:i2]), "".join(b[j1:j2])))
        elif tag == "delete":
            ops.append(DiffOp("removed", "".join(a[i1:i2])))
        else:
            ops.append(DiffOp("added", "".join(b[j1:j2])))
    return _merged(ops)


def diff_words(old: str, new: str) -> list[DiffOp]:
    """The word runs that turn ``old`` into ``new`` (each word with the whitespace after it)."""
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    ops: list[DiffOp] = []
    matcher = difflib.SequenceMatcher(a=_keys(a), b=_keys(b), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            ops.append(DiffOp("equal", "".join(b[j1:j2])))
            continue
        if i2 > i1:
            ops.append(DiffOp("removed", "".join(a[i1:i2])))
        if j2 > j1:
            ops.append(DiffOp("added", "".join(b[j1:j2])))
    return _merged(ops)


def _keys(units: Sequence[str]) -> list[str]:
    return [" ".join(u.split()) for u in units]


def _merged(ops: list[DiffOp]) -> list[DiffOp]:
    """Adjacent runs of one kind joined; a change of whitespace alone is no change."""
    out: list[DiffOp] = []
    for op in ops:
        if not op.text:
            continue
        if op.op != "equal" and not op.text.strip():
            op = DiffOp("equal", op.text if op.op == "added" else "")
            if not op.text:
                continue
        if out and out[-1].op == op.op:
            out[-1] = DiffOp(op.op, out[-1].text + op.text)
        else:
            out.append(op)
    return out
