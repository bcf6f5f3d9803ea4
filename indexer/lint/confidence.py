"""How likely a flag is to point at a real fault, so that an auditor reads the likely ones first.

The rules' flags are not equally trustworthy. On the planted-fault benchmark's development sets
a changed number or a hedge said as a certainty held the fault it names almost every time, a
dropped or added negation less than half the time. A logistic model over what the flag itself
shows — the rule that raised it, how much of each sentence the other restates, how long the
quoted words are — turns that into a probability (`make fit-lint` fits it, one manual left out
at a time; ``models/confidence.json``). It is calibrated on a benchmark where half the
summaries hold one fault, so its absolute values overstate a real queue's rate of faults; its
order is what the audit queue uses. The summary's number of flags is deliberately not a feature:
every faulty benchmark summary holds exactly one fault, which a real summary need not.

The dependency check, which no planted fault exercises (a quoted sentence leaning on one the
summary left out), rates its own flags with a model fitted on sentences the team's judges read
(:mod:`indexer.lint.dependency`).
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from indexer.lint.flags import LintFlag
from indexer.lint.logistic import Logistic
from indexer.lint.text import content

MODEL = Path(__file__).parent / "models" / "confidence.json"
# A quote's length counts up to this many words (a long quote is a whole clause).
QUOTE_WORDS = 15


def features(flag: LintFlag) -> dict[str, float]:
    """The flag's features by name: its rule (one-hot) and how much the two sentences share."""
    said = content(flag.summary_text)
    source = content(flag.source_text or "")
    shared = len(said & source)
    quote = flag.source_quote or flag.summary_quote or ""
    return {
        f"rule={flag.rule}": 1.0,
        "summary_share": shared / len(said) if said else 0.0,
        "source_share": shared / len(source) if source else 0.0,
        "quote_words": min(len(quote.split()), QUOTE_WORDS) / QUOTE_WORDS,
    }


class ConfidenceModel(Logistic):
    """A logistic model over :func:`features`: weights by feature name and an intercept."""

    @classmethod
    def load(cls, path: Path = MODEL) -> ConfidenceModel:
        """The model stored at ``path`` (the shipped one by default)."""
        data = cls.stored(path)
        return cls(weights=dict(data["weights"]), intercept=float(data["intercept"]))

    def probability(self, flag: LintFlag) -> float:
        """The probability that ``flag`` names a real fault (rounded to three places)."""
        return self.score(features(flag))

    def rate(self, flags: list[LintFlag]) -> list[LintFlag]:
        """``flags`` with their confidence; flags the rules did not raise are left as they are
        (a judge's flag has no such estimate)."""
        return [replace(f, confidence=self.probability(f)) if f.origin == "rules" else f
                for f in flags]  # fmt: skip


@lru_cache(maxsize=1)
def default_model() -> ConfidenceModel:
    """The shipped model, read once."""
    return ConfidenceModel.load()
