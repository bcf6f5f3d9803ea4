"""The mix: passages and summaries of every level in one ranking, weighed by the query's intent.

Passages and summaries are first ranked within their kind, exactly as a passages-only query
ranks passages (so the order among passages never changes). The two lists are then merged by a
linear score learned on labelled questions: a candidate's relevance within its kind, the log
probability that the query asks for its level (:mod:`retriever.intent`), and what the tree
says about a summary: how many of the best passages lie below it and how good the best of them
is, whether its heading's words or number are in the query, and for a part of a document
whether the query names that document ("appendix A of the libtasn1 manual"). That a query is
asked within one document is no evidence of what it asks for (a chatbot that knows the user's
manual scopes every question), so it is not a feature; it only brings that document's root in.
The weights are fitted by a listwise softmax over the candidates of each question
(``make train-mix``) and shipped as ``retriever/models/mix.json``, twice: the first place by
weights under which a lost first place on a specific question costs many times more than a
summary one place lower (a chatbot quotes its first passage), the other places by weights
under which every question counts alike.

A summary enters a question's first five places only as far as the intent step is sure the
question is global (:data:`PASSAGES_FIRST`): read as almost surely specific, the five best
passages (in the passages-only order) come first; read as probably specific, the four best, so
that one summary may follow them; otherwise the mix orders the places alone. A misread global
question still finds its summary near the top, and a specific one keeps the passages its
passages-only ranking would give it. The thresholds were chosen on the tuning half of the
real-manual questions (``benchmarks/bench_mix.py``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources

import numpy as np

from indexer.errors import ConfigError
from retriever.candidates import Candidate
from retriever.intent import Intent
from retriever.intent_cues import named_numbers
from retriever.names import document_name, heading_parts, node_name
from retriever.tokenize import tokenize

MODEL_FILE = "mix.json"
PLACES = ("first", "rest")
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
    "section.document_named",
    "document.relevance",
    "document.bias",
    "document.log_intent",
    "document.title_match",
    "document.title_named",
    "document.log_passages_below",
    "document.best_passage_below",
    "summary.p_passage",
    "summary.relevance_x_p_passage",
    "summary.number_match",
    "summary.relevance_x_p_level",
)
_INDEX = {name: i for i, name in enumerate(FEATURES)}
_NO_PASSAGE_BELOW = -1.0
# (p, n): below probability p of a global reading (section or document), the first n places
# are the n best passages. Ascending in p.
PASSAGES_FIRST: tuple[tuple[float, int], ...] = ((0.1, 5), (0.4, 4))


@dataclass(frozen=True, kw_only=True)
class MixInput:
    """One query's candidates, each kind ranked on its own (``score``: relevance in its kind).

    Attributes:
        query: The query text.
        intent: How the query was read.
        passages: Passage candidates, best first.
        summaries: Summary candidates of every level, best first.
        below: For each summary, the passage candidates (node ids) that lie below it.
        titles: The title of each summary's document, where it has one.
    """

    query: str
    intent: Intent
    passages: Sequence[Candidate]
    summaries: Sequence[Candidate]
    below: Mapping[str, Sequence[str]]
    titles: Mapping[str, str] = field(default_factory=dict)

    @property
    def candidates(self) -> list[Candidate]:
        """Passages, then summaries: the rows of :func:`features`."""
        return [*self.passages, *self.summaries]


def features(data: MixInput) -> np.ndarray:
    """The feature matrix of :data:`FEATURES`, one row per candidate of ``data.candidates``."""
    probs = np.clip(data.intent.probabilities(), 1e-4, 1.0)
    words = set(tokenize(data.query))
    numbers = set(named_numbers(data.query))
    relevance = {c.node_id: c.score for c in data.passages}
    rows = np.zeros((len(data.passages) + len(data.summaries), len(FEATURES)))
    for i, c in enumerate(data.passages):
        rows[i, _INDEX["passage.relevance"]] = c.score
        rows[i, _INDEX["passage.bias"]] = 1.0
        rows[i, _INDEX["passage.log_intent"]] = math.log(probs[0])
        rows[i, _INDEX["passage.relevance_x_p_passage"]] = c.score * probs[0]
    for j, c in enumerate(data.summaries, start=len(data.passages)):
        root = c.node.parent_id is None
        block = "document" if root else "section"
        below = [relevance[b] for b in data.below.get(c.node_id, ()) if b in relevance]
        match = title_match(words, node_name(c.node.title, c.node.doc_id, root=root))
        numbered = number_match(numbers, c.node.title)
        # A part the query names is what it asks about, whatever our level for it: "the
        # network setup chapter" of a manual shipped one chapter per page is a document here.
        named = match >= 1.0 or numbered > 0
        p_level = probs[1] + probs[2] if named else probs[2] if root else probs[1]
        rows[j, _INDEX[f"{block}.relevance"]] = c.score
        rows[j, _INDEX[f"{block}.bias"]] = 1.0
        rows[j, _INDEX[f"{block}.log_intent"]] = math.log(p_level)
        rows[j, _INDEX[f"{block}.title_match"]] = match
        if match >= 1.0:
            rows[j, _INDEX[f"{block}.title_named"]] = probs[1] + probs[2]
        rows[j, _INDEX[f"{block}.log_passages_below"]] = math.log1p(len(below))
        rows[j, _INDEX[f"{block}.best_passage_below"]] = max(below, default=_NO_PASSAGE_BELOW)
        rows[j, _INDEX["summary.p_passage"]] = probs[0]
        rows[j, _INDEX["summary.relevance_x_p_passage"]] = c.score * probs[0]
        rows[j, _INDEX["summary.number_match"]] = numbered
        rows[j, _INDEX["summary.relevance_x_p_level"]] = c.score * p_level
        if not root:
            title = data.titles.get(c.node.doc_id)
            rows[j, _INDEX["section.document_named"]] = document_match(words, c.node.doc_id, title)
    return rows


def document_match(query_words: set[str], doc_id: str, title: str | None) -> float:
    """The share of the words naming a document that the query uses: its title's or, where
    more of them, its file's ("bzip2/manual.pdf.gz")."""
    return max(title_match(query_words, title), title_match(query_words, document_name(doc_id)))


def title_match(query_words: set[str], title: str | None) -> float:
    """The share of a heading's words (its number and level word left out) that the query uses."""
    words = heading_parts(title)[1] if title else frozenset()
    return len(words & query_words) / len(words) if words else 0.0


def number_match(numbers: set[str], title: str | None) -> float:
    """1 when the query names the heading's number ("section 3.2" and "3.2 Redirections")."""
    if not title or not numbers:
        return 0.0
    return 1.0 if heading_parts(title)[0] in numbers else 0.0


@dataclass(frozen=True)
class MixModel:
    """Two weight vectors over :data:`FEATURES`: one picks the first place, one orders the rest.

    A chatbot quotes its first result, and a user reads the first five. So the first place is
    chosen by weights fitted with a specific question's first place counting many times over
    (a passage must not lose it to a summary), and the rest by weights fitted with every
    question counting alike (the right summaries somewhere near the top).
    """

    first: np.ndarray
    rest: np.ndarray

    @staticmethod
    def load(name: str = MODEL_FILE) -> MixModel:
        """The model shipped in ``retriever/models/``.

        Raises:
            ConfigError: The file is missing or was fitted for other features.
        """
        try:
            raw = json.loads(resources.files("retriever.models").joinpath(name).read_text())
            if tuple(raw["features"]) != FEATURES:
                raise ConfigError(
                    f"the mix model {name} was fitted for other features; run `make train-mix`"
                )
            first, rest = (np.asarray(raw[k]["weights"], dtype=np.float64) for k in PLACES)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"cannot read the mix model {name}: {exc}") from exc
        return MixModel(first, rest)

    def rank(self, data: MixInput) -> list[Candidate]:
        """Every candidate, best first, with ``score`` set to its mix score (the first
        place's is raised to the best of the rest where needed, so scores never go up)."""
        cands = data.candidates
        if not cands:
            return []
        x = features(data)
        top = int(np.argmax(x @ self.first))
        scores = x @ self.rest
        for c, s in zip(cands, scores, strict=True):
            c.score = float(s)
        others = sorted(
            (c for i, c in enumerate(cands) if i != top),
            key=lambda c: (-c.score, c.node.doc_id, c.node.ordinal),
        )
        if others:
            cands[top].score = max(cands[top].score, others[0].score)
        return passages_first(data, [cands[top], *others])


def passage_places(p_global: float) -> int:
    """How many first places go to the best passages at this probability of a global reading."""
    return next((n for p, n in PASSAGES_FIRST if p_global < p), 0)


def passages_first(data: MixInput, ranked: list[Candidate]) -> list[Candidate]:
    """``ranked`` with the best passages first (in the passages-only order) as
    :func:`passage_places` says; scores raised where the new order needs it, so they never go
    up down the list."""
    places = passage_places(1.0 - data.intent.scores["passage"])
    if not places or not data.passages:
        return ranked
    head = list(data.passages[:places])
    ids = {c.node_id for c in head}
    out = [*head, *(c for c in ranked if c.node_id not in ids)]
    for i in range(len(out) - 2, -1, -1):
        out[i].score = max(out[i].score, out[i + 1].score)
    return out
