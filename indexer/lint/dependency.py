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
  is not that; ``partial``: the next quote is, but only part of the announced list;
  ``lead_in_last``: a lead-in the summary ends with (no other sentence follows that a reader
  could take for its list: it dangles, visibly cut, rather than presenting something else as
  what it announces); ``carried``: the sentence says most of what it announces itself, 80 % of
  its words ("you can add the ``--rm`` flag:" before ``--rm=false: Automatically remove …``).

A logistic model over these features (``models/dependency.json``, fitted by
``python -m benchmarks.audit.fit_dependency`` on the sentences of the summary benchmark's tuning
half that the team's judges read: a sentence named misleading is a positive) gives the flag its
confidence: the share of such sentences judged misleading. The flag quotes what was left out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from indexer.lint.flags import LintFlag
from indexer.lint.logistic import Logistic
from indexer.lint.surroundings import (
    announced,
    covered,
    first_cell,
    follows,
    head,
    label_before,
    lead_in,
    previous_sentence,
    share_cited,
)
from indexer.summarizers.cues import is_lead_in, leans_back, points_forward, refers_to
from indexer.summarizers.sentences import sentence_spans
from indexer.words import content

MODEL_PATH = Path(__file__).parent / "models" / "dependency.json"
FEATURES = (
    "back", "left_out", "back_left_out", "pronoun_left_out", "definite", "label", "label_code",
    "item", "cell", "lead_in", "ahead", "partial", "lead_in_last", "carried",
)  # fmt: skip
# The features a flag can be raised for (the rest only sharpen its confidence; a definite
# subject naming what the sentence before introduced is as often a new sentence on the same
# thing as a dependent one: on the tuning half it was less often misleading than the average).
_REASONS = (
    "lead_in", "ahead", "partial", "item", "cell", "label", "pronoun_left_out", "back_left_out",
)  # fmt: skip

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
    *,
    end: int | None = None,
    last: bool = False,
) -> Leaning:
    """The features of the quoted sentence that starts at ``start`` in ``text``, given the
    ranges of ``text`` the whole summary cites (``cited``) and the node's headings (``labels``,
    which the reader has).

    Args:
        quoted: The sentence as the summary says it.
        text: The document's text.
        start: Where the quote starts in ``text``.
        cited: The ranges of ``text`` the whole summary cites.
        labels: The node's headings.
        end: Where the quote ends in ``text`` (its last span's end: a quote with its markup
            stripped is shorter than its source); ``start + len(quoted)`` when omitted.
        last: Whether the quote is the summary's last sentence.
    """
    first = _first_sentence(quoted)
    feats = dict.fromkeys(FEATURES, 0.0)
    gone: dict[str, str] = {}
    stop = start + len(quoted) if end is None else end
    _forward(quoted, first, text, stop, cited, feats, gone)
    if feats["lead_in"] and last:
        feats["lead_in_last"] = 1.0
    first = _about_the_node(first, labels)
    _back(first, text, start, cited, feats, gone)

    term = label_before(text, start, labels)
    if term is not None and head(text[term[0] : term[1]]) & content(first):
        term = None  # the sentence names its term itself
    if term is not None and not covered(term, cited):
        line = text[term[0] : term[1]]
        feats["label"] = 1.0
        feats["label_code"] = float(bool(_CODE.search(line)))
        gone["label"] = line

    lead = lead_in(text, start)
    if lead is not None and not covered(lead, cited):
        feats["item"] = 1.0
        gone["item"] = text[lead[0] : lead[1]]

    cell = first_cell(text, start)
    if cell is not None and not covered(cell, cited):
        feats["cell"] = 1.0
        gone["cell"] = text[cell[0] : cell[1]]
    return Leaning(feats, gone)


def _forward(
    quoted: str,
    first: str,
    text: str,
    end: int,
    cited: Sequence[tuple[int, int]],
    feats: dict[str, float],
    gone: dict[str, str],
) -> None:
    """``lead_in``, ``ahead`` and ``partial``: what the sentence announces, left out."""
    colon = quoted.rstrip().endswith(":")
    if not (colon or (points_forward(quoted) and not is_lead_in(first))):
        return
    what = announced(text, end)
    if not follows(text, end, cited):
        name = "lead_in" if colon else "ahead"
        feats[name] = 1.0
        gone[name] = what
    elif what and share_cited(text, end, cited) < 1.0:
        feats["partial"] = 1.0
        gone["partial"] = what
    said = content(what)
    held = feats["lead_in"] or feats["ahead"] or feats["partial"]
    if held and said and len(said & content(quoted)) >= _CARRIED * len(said):
        feats["carried"] = 1.0


def _back(
    first: str,
    text: str,
    start: int,
    cited: Sequence[tuple[int, int]],
    feats: dict[str, float],
    gone: dict[str, str],
) -> None:
    """``back`` and the features of the sentence before it, left out."""
    back = leans_back(first)
    feats["back"] = float(back)
    before = previous_sentence(text, start)
    if before is None or covered(before, cited):
        return
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


class DependencyModel(Logistic):
    """A logistic model over :data:`FEATURES`: weights by name and an intercept."""

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> DependencyModel:
        """The model stored at ``path``."""
        data = cls.stored(path)
        if list(data["features"]) != list(FEATURES):
            raise ValueError(
                "dependency model was fitted on other features; "
                "run python -m benchmarks.audit.fit_dependency"
            )
        return cls(dict(data["weights"]), float(data["intercept"]))

    def probability(self, features: dict[str, float]) -> float:
        """The probability that a sentence with ``features`` misleads (three places)."""
        return self.score(features)


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
# The share of what a lead-in announces that it says itself, for it to carry it.
_CARRIED = 0.8


def dependency_flag(
    quoted: str,
    text: str,
    start: int,
    cited: Sequence[tuple[int, int]] = (),
    labels: Sequence[str] = (),
    *,
    end: int | None = None,
    last: bool = False,
    model: DependencyModel | None = None,
) -> LintFlag | None:
    """A ``dependency`` flag when the quoted sentence (starting at ``start`` in ``text``) leans
    on what the summary (whose sentences cite the ranges ``cited``) leaves out, with the model's
    confidence and the left-out source text quoted; else None. ``end`` and ``last`` are as for
    :func:`leaning`."""
    found = leaning(quoted, text, start, cited, labels, end=end, last=last)
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
