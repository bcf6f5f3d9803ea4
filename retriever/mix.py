"""The mix: passages and summaries of every level in one ranking, weighed by the query's intent.

Passages and summaries are first ranked within their kind, exactly as a passages-only query
ranks passages (so the order among passages never changes). The two lists are then merged by a
linear score learned on labelled questions: a candidate's relevance within its kind, the log
probability that the query asks for its level (:mod:`retriever.intent`), and what the tree
says about a summary: how many of the best passages lie below it and how good the best of them
is, whether its heading's words or number are in the query. That a query is asked within one
document is no evidence of what it asks for (a chatbot that knows the user's manual scopes every
question), so it is not a feature; it only brings that document's root in. The weights are
fitted by a listwise softmax over the candidates of each question (``make train-mix``) and
shipped as ``retriever/models/mix.json``; a lost first place on a specific question costs more
in that fit than a summary one place lower, because a chatbot quotes its first passage.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from indexer.errors import ConfigError
from retriever.candidates import Candidate
from retriever.intent import Intent
from retriever.intent_cues import named_numbers
from retriever.tokenize import tokenize

MODEL_FILE = "mix.json"
FEATURES: tuple[str, ...] = (
    "passage.relevance",
    "passage.bias",
    "passage.log_intent",
    "passage.relevance_x_p_passage",
    "section.relevance",
    "section.bias",
    "section.log_intent",
    "section.title_match",
    "section.title_named",
    "section.log_passages_below",
    "section.best_passage_below",
    "document.relevance",
    "document.bias",
    "document.log_intent",
    "document.title_match",
    "document.log_passages_below",
    "document.best_passage_below",
    "summary.p_passage",
    "summary.relevance_x_p_passage",
    "summary.number_match",
    "summary.relevance_x_p_level",
)
_INDEX = {name: i for i, name in enumerate(FEATURES)}
_NUMBER = re.compile(r"^[\dA-Z]+(\.\d+)*\.?$")
_NO_PASSAGE_BELOW = -1.0


@dataclass(frozen=True, kw_only=True)
class MixInput:
    """One query's candidates, each kind ranked on its own (``score``: relevance in its kind).

    Attributes:
        query: The query text.
        intent: How the query was read.
        passages: Passage candidates, best first.
        summaries: Summary candidates of every level, best first.
        below: For each summary, the passage candidates (node ids) that lie below it.
    """

    query: str
    intent: Intent
    passages: Sequence[Candidate]
    summaries: Sequence[Candidate]
    below: Mapping[str, Sequence[str]]

    @property
    def candidates(self) -> list[Candidate]:
        """Passages, then summaries: the rows of :func:`features`."""
        return [*self.passages, *self.summaries]


def features(data: MixInput) -> np.ndarray:
    """The feature matrix of :data:`FEATURES`, one row per candidate of ``data.candidates``."""
    probs = np.clip(data.intent.probabilities(), 1e-4, 1.0)
    logs = np.log(probs)
    words = set(tokenize(data.query))
    numbers = set(named_numbers(data.query))
    relevance = {c.node_id: c.score for c in data.passages}
    rows = np.zeros((len(data.passages) + len(data.summaries), len(FEATURES)))
    for i, c in enumerate(data.passages):
        rows[i, _INDEX["passage.relevance"]] = c.score
        rows[i, _INDEX["passage.bias"]] = 1.0
        rows[i, _INDEX["passage.log_intent"]] = logs[0]
        rows[i, _INDEX["passage.relevance_x_p_passage"]] = c.score * probs[0]
    for j, c in enumerate(data.summaries, start=len(data.passages)):
        root = c.node.parent_id is None
        block = "document" if root else "section"
        p_level = probs[2] if root else probs[1]
        below = [relevance[b] for b in data.below.get(c.node_id, ()) if b in relevance]
        rows[j, _INDEX[f"{block}.relevance"]] = c.score
        rows[j, _INDEX[f"{block}.bias"]] = 1.0
        rows[j, _INDEX[f"{block}.log_intent"]] = logs[2] if root else logs[1]
        title = c.node.title or (document_name(c.node.doc_id) if root else None)
        match = title_match(words, title)
        rows[j, _INDEX[f"{block}.title_match"]] = match
        if not root and match >= 1.0:
            # every word of the heading is in the query: the query names this part
            rows[j, _INDEX["section.title_named"]] = probs[1] + probs[2]
        rows[j, _INDEX[f"{block}.log_passages_below"]] = math.log1p(len(below))
        rows[j, _INDEX[f"{block}.best_passage_below"]] = max(below, default=_NO_PASSAGE_BELOW)
        rows[j, _INDEX["summary.p_passage"]] = probs[0]
        rows[j, _INDEX["summary.relevance_x_p_passage"]] = c.score * probs[0]
        rows[j, _INDEX["summary.number_match"]] = number_match(numbers, c.node.title)
        rows[j, _INDEX["summary.relevance_x_p_level"]] = c.score * p_level
    return rows


def title_match(query_words: set[str], title: str | None) -> float:
    """The share of a heading's words (its number left out) that the query uses."""
    words = _title_words(title or "")
    return len(words & query_words) / len(words) if words else 0.0


@lru_cache(maxsize=65_536)
def _title_words(title: str) -> frozenset[str]:
    return frozenset(tokenize(" ".join(w for w in title.split() if not _NUMBER.match(w))))


def document_name(doc_id: str) -> str:
    """The words of a document's id, for a document without a title ("bzip2/manual.pdf.gz"
    reads "bzip2 manual"): what a user calls a manual when asking about it by name."""
    stem = doc_id
    for suffix in (".gz", ".pdf", ".html", ".htm", ".md", ".markdown", ".txt"):
        stem = stem.removesuffix(suffix)
    return " ".join(w for w in re.split(r"[/_.\-]+", stem) if w)


def number_match(numbers: set[str], title: str | None) -> float:
    """1 when the query names the heading's number ("section 3.2" and "3.2 Redirections")."""
    if not title or not numbers:
        return 0.0
    first = title.split()[0].rstrip(".")
    return 1.0 if first in numbers else 0.0


@dataclass(frozen=True)
class MixModel:
    """A weight per feature of :data:`FEATURES`."""

    weights: np.ndarray

    @staticmethod
    def load(name: str = MODEL_FILE) -> MixModel:
        """The model shipped in ``retriever/models/``.

        Raises:
            ConfigError: The file is missing or was fitted for other features.
        """
        try:
            raw = json.loads(resources.files("retriever.models").joinpath(name).read_text())
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read the mix model {name}: {exc}") from exc
        if tuple(raw["features"]) != FEATURES:
            raise ConfigError(
                f"the mix model {name} was fitted for other features; run `make train-mix`"
            )
        return MixModel(np.asarray(raw["weights"], dtype=np.float64))

    def rank(self, data: MixInput) -> list[Candidate]:
        """Every candidate, best first, with ``score`` set to its mix score."""
        cands = data.candidates
        if not cands:
            return []
        scores = features(data) @ self.weights
        for c, s in zip(cands, scores, strict=True):
            c.score = float(s)
        return sorted(cands, key=lambda c: (-c.score, c.node.doc_id, c.node.ordinal))
