"""Whether a candidate condition flag is raised: a scored decision, not one more rule.

The rules of :mod:`indexer.lint.conditions` propose a candidate for every constraint of a
restated source sentence that the summary sentence does not visibly keep. Each candidate is then
described by a few features — how surely the pair is a restatement, how much of the constraint's
words the summary sentence and the whole summary have, how close in meaning the constraint is to
the nearest span of the summary (a condition reworded as a noun phrase: "a BIND 9 secondary" for
"when acting as a secondary server"), whether the summary sentence hedges or has a cue of its
own, which kind of constraint it is. The flag is raised when the rules propose it (restated, not
kept) and the fitted decision confirms it; it never adds one. Two decisions are fitted and
compared by cross-validation: a logistic model over all the features (fitted on every candidate,
kept ones too, so that it sees enough cases) and bounds on the meaning similarity of the
condition to the summary's closest span, alone or with the share of its words anywhere in the
summary; the best, or at a tie the simplest, ships. A
clause whose restricting cue is lost while its words are all restated ("when the leakage
exceeds …" for "only if the leakage exceeds …") is raised as the rules say: no span similarity
can see a lost "only".

The model (``indexer/lint/models/condition.json``) is fitted by ``make fit-lint`` on the tuning
half of the planted-fault benchmark only, its threshold chosen by cross-validation there
(``benchmarks/faithfulness/fit.py``); without the file the rules' own verdict decides.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from indexer.lint.conditions import Constraint
from indexer.lint.cues import CONDITIONAL, EXCEPTION, HEDGES, QUALIFIERS
from indexer.lint.quantities import matches, quantities
from indexer.lint.text import content, find_phrase, shared
from indexer.lint.vectors import SentenceVectors

MODEL_PATH = Path(__file__).parent / "models" / "condition.json"
KINDS = ("clause", "exception", "qualifier", "scope")
FEATURES = (
    "rule_kept", "rule_restates", "align", "lexical", "restate", "in_sentence", "in_nearby",
    "in_summary", "phrase_sim", "cue_in_sentence", "kind_qualifier", "cue_lost", "bare_amount",
)  # fmt: skip
_LIMITS = frozenset(["at most", "at least", "more than", "less than", "the lesser of",
                     "the greater of"])  # fmt: skip
_SPAN_WORDS = (2, 3, 4, 5, 6)
_TOKEN = re.compile(r"\S+")


@dataclass(frozen=True)
class Candidate:
    """What one candidate condition flag is decided on."""

    constraint: Constraint
    source: str  # the source sentence
    sentence: str  # the summary sentence
    nearby: str  # the summary sentence with its neighbours
    summary: str  # the whole summary (what the summarizer itself adds left out)
    align: float  # the pair's alignment score
    lexical: float  # the share of the summary sentence's words the source sentence has
    rank: int  # 0 for the best-aligned source sentence
    restate: float  # the share of what the constraint restricts that the summary restates
    rule_restates: bool  # the rules' verdict: the summary restates what it restricts
    rule_kept: bool  # the rules' verdict: the summary keeps the constraint


class Decider(Protocol):
    """Decides a candidate (the fitted model; a recorder while fitting)."""

    def keep(self, candidate: Candidate, spans: SummarySpans) -> bool:
        """True to raise the flag."""
        ...


def _share(body: set[str], text: str) -> float:
    return len(shared(body, content(text))) / len(body) if body else 1.0


def _spans(text: str) -> list[str]:
    tokens = _TOKEN.findall(text)
    out = [" ".join(tokens[i : i + n]) for n in _SPAN_WORDS for i in range(len(tokens) - n + 1)]
    return out or [text]


class SummarySpans:
    """The vectors of a summary's word spans (2–6 words), encoded once per summary on first use."""

    def __init__(self, summary: str, vectors: SentenceVectors | None) -> None:
        self.summary = summary
        self.vectors = vectors
        self._matrix: np.ndarray | None = None

    def similarity(self, phrase: str) -> float:
        """The cosine of ``phrase`` with the closest word span of the summary."""
        if self.vectors is None or not phrase.strip() or not self.summary.strip():
            return 0.0
        encode = getattr(self.vectors, "fresh", self.vectors.vectors)  # spans are seen once
        if self._matrix is None:
            self._matrix = encode(_spans(self.summary))
        v = encode([phrase])[0]
        return float(np.clip(self._matrix @ v, 0.0, 1.0).max())


def cue_lost(c: Constraint, sentence: str) -> bool:
    """True when a restricting cue ("only", "except", "at most", a hedge) has no word of its
    group in the summary sentence: the words of the condition may all be there ("when the
    leakage exceeds …" for "only if the leakage exceeds …") and still not restrict."""
    if c.kind == "qualifier":
        group: tuple[str, ...] = c.group + (HEDGES if set(c.group) & set(HEDGES) else ())
    elif c.kind == "exception":
        group = (*EXCEPTION, "unless", "but not", "only", "not counting")
    elif "only" in c.cue.split():
        group = QUALIFIERS[0]
    else:
        return False
    return not any(find_phrase(sentence, w) for w in group)


def bare_amount(c: Constraint, sentence: str, source: str) -> bool:
    """True when a limit's amount is restated without the limit: "at most 1GB" said as "1GB",
    "the maximum duration is three times the delay" as "lasts three times the delay" (the
    amount in the limit's clause; zero is left out: "greater than zero" is said "positive")."""
    if c.kind != "qualifier" or not c.group or c.group[0] not in _LIMITS:
        return False
    if not cue_lost(c, sentence):
        return False
    governed = re.split(r"[,;:()]|\.(?:\s|$)", source[c.span.start :], maxsplit=1)[0]
    said = quantities(sentence)
    return any(q.value != 0 and matches(q, said) for q in quantities(governed))


def features(cand: Candidate, spans: SummarySpans) -> dict[str, float]:
    """The features of one candidate, by the names of :data:`FEATURES`."""
    c = cand.constraint
    body = content(c.span.text[len(c.cue) :]) or content(c.span.text)
    cues = (*CONDITIONAL, *EXCEPTION, "only", "unless", *HEDGES)
    return {
        "rule_kept": float(cand.rule_kept),
        "rule_restates": float(cand.rule_restates),
        "align": cand.align,
        "lexical": cand.lexical,
        "restate": cand.restate,
        "in_sentence": _share(body, cand.sentence),
        "in_nearby": _share(body, cand.nearby),
        "in_summary": _share(body, cand.summary),
        "phrase_sim": spans.similarity(c.span.text),
        "cue_in_sentence": float(any(find_phrase(cand.sentence, w) for w in cues)),
        "kind_qualifier": float(c.kind == "qualifier"),
        "cue_lost": float(cue_lost(c, cand.sentence)),
        "bare_amount": float(bare_amount(c, cand.sentence, cand.source)),
    }


class ModelDecider:
    """A fitted decision over :data:`FEATURES`: bounds on features (raised while each is
    below its bound) or a logistic model (raised at or above its threshold), as the fit chose."""

    def __init__(self, model: dict[str, Any]) -> None:
        if list(model["features"]) != list(FEATURES):
            raise ValueError("condition model was fitted on other features; run make fit-lint")
        self.kind = str(model["kind"])
        bounds = {str(k): float(v) for k, v in model.get("below", {}).items()}
        # "align" is a lower bound: a candidate the rules do not call restated is proposed
        # when its pair is aligned at least this well.
        self.aligned = bounds.pop("align", None)
        self.below = bounds
        if self.kind == "logistic":
            self.threshold = float(model["threshold"])
            self.mean = np.asarray(model["mean"], dtype=np.float64)
            self.scale = np.asarray(model["scale"], dtype=np.float64)
            self.coef = np.asarray(model["coef"], dtype=np.float64)
            self.intercept = float(model["intercept"])

    def probability(self, feats: dict[str, float]) -> float:
        """The logistic model's probability that the candidate's condition is really dropped."""
        x = (np.asarray([feats[n] for n in FEATURES]) - self.mean) / self.scale
        return float(1.0 / (1.0 + math.exp(-(float(x @ self.coef) + self.intercept))))

    def keep(self, candidate: Candidate, spans: SummarySpans) -> bool:
        """True when the rules propose the flag and the fitted decision confirms it: a lost
        restricting cue of a clause ("only if" said as "when") stands as the rules say."""
        aligned = self.aligned is not None and candidate.align >= self.aligned
        if candidate.rule_kept or not (candidate.rule_restates or aligned):
            return False
        c = candidate.constraint
        if c.kind != "qualifier" and cue_lost(c, candidate.sentence):
            return True
        if bare_amount(c, candidate.sentence, candidate.source):
            return True
        feats = features(candidate, spans)
        if self.kind == "logistic":
            return self.probability(feats) >= self.threshold
        return all(feats[name] < bound for name, bound in self.below.items())


class RulesOnly:
    """The rules' own verdict (the previous lint): raised when restated and not kept."""

    def keep(self, candidate: Candidate, spans: SummarySpans) -> bool:
        """True when the rules say the condition is restated without being kept."""
        return candidate.rule_restates and not candidate.rule_kept


@lru_cache(maxsize=1)
def default_decider() -> Decider:
    """The shipped model, or :class:`RulesOnly` when there is none."""
    if not MODEL_PATH.exists():
        return RulesOnly()
    return ModelDecider(json.loads(MODEL_PATH.read_text()))
