"""How a query is read: does it ask for a passage, a section (or chapter), or the whole document?

The estimate is a calibrated probability over the three intents, never a hard switch: the mix
(:mod:`retriever.mix`) weighs every candidate by the probability of its level, so an unsure
query still gets both passages and summaries. The model is a multinomial logistic regression
over the query's wording (:mod:`retriever.intent_cues`) and its MiniLM embedding, fitted on
labelled questions over real manuals (``make train-mix``; the questions' tuning half only) and
shipped as ``retriever/models/intent.json``. A request may override the estimate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources

import numpy as np

from indexer.errors import ConfigError
from indexer.store.records import NodeRecord
from retriever.answers import IntentReading
from retriever.intent_cues import CUE_NAMES, cue_features

INTENTS: tuple[str, ...] = ("passage", "section", "document")
MODEL_FILE = "intent.json"
# A forced intent keeps a little weight on the others, so that the mix still orders them.
_FORCED = 0.98


@dataclass(frozen=True, kw_only=True)
class Intent:
    """What a query asks for.

    Attributes:
        label: The most probable intent: ``passage``, ``section`` or ``document``.
        scores: Probability of each intent (they sum to 1).
        source: ``estimated`` (by the model) or ``request`` (forced by the caller).
    """

    label: str
    scores: dict[str, float]
    source: str = "estimated"

    @property
    def score(self) -> float:
        """The probability of :attr:`label`."""
        return self.scores[self.label]

    def probabilities(self) -> np.ndarray:
        """The scores in :data:`INTENTS` order."""
        return np.array([self.scores[i] for i in INTENTS], dtype=np.float64)

    def reading(self) -> IntentReading:
        """The ``intent`` of a query answer: the reading, rounded for the response."""
        return IntentReading(
            label=self.label,  # type: ignore[arg-type]  # one of INTENTS
            score=round(self.score, 4),
            scores={k: round(v, 4) for k, v in self.scores.items()},
            source=self.source,  # type: ignore[arg-type]
        )


def level_of(node: NodeRecord) -> str:
    """The intent a node answers: a passage, a section (any heading or cluster), the document."""
    if node.is_passage:
        return "passage"
    return "document" if node.parent_id is None else "section"


def forced_intent(label: str) -> Intent:
    """The intent a request asks for explicitly."""
    rest = (1.0 - _FORCED) / (len(INTENTS) - 1)
    return Intent(
        label=label,
        scores={i: (_FORCED if i == label else rest) for i in INTENTS},
        source="request",
    )


@dataclass(frozen=True)
class IntentModel:
    """Multinomial logistic regression: cue features, then the query embedding."""

    coef: np.ndarray  # (len(INTENTS), n_features)
    intercept: np.ndarray  # (len(INTENTS),)
    cue_names: tuple[str, ...] = field(default=CUE_NAMES)

    @staticmethod
    def load(name: str = MODEL_FILE) -> IntentModel:
        """The model shipped in ``retriever/models/``.

        Raises:
            ConfigError: The file is missing or was made for other cue features.
        """
        try:
            raw = json.loads(resources.files("retriever.models").joinpath(name).read_text())
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read the intent model {name}: {exc}") from exc
        if tuple(raw["cue_names"]) != CUE_NAMES or tuple(raw["intents"]) != INTENTS:
            raise ConfigError(
                f"the intent model {name} was fitted for other features; run `make train-mix`"
            )
        return IntentModel(
            coef=np.asarray(raw["coef"], dtype=np.float64),
            intercept=np.asarray(raw["intercept"], dtype=np.float64),
        )

    def estimate(self, text: str, vector: np.ndarray) -> Intent:
        """The intent of a query from its text and its unit embedding."""
        features = np.concatenate([np.asarray(cue_features(text)), np.asarray(vector, np.float64)])
        logits = self.coef @ features + self.intercept
        logits -= logits.max()
        probs = np.exp(logits)
        probs /= probs.sum()
        best = int(np.argmax(probs))
        return Intent(
            label=INTENTS[best], scores={i: float(p) for i, p in zip(INTENTS, probs, strict=True)}
        )
