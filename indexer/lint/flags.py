"""A lint flag: what is wrong, the summary sentence and the source sentence it restates."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class LintFlag:
    """One problem found in a summary.

    ``summary_text`` is the summary sentence and ``source_text`` the source sentence it
    restates; ``summary_quote`` and ``source_quote`` are the words to highlight in each (the
    invented number, the dropped condition), None where there is nothing to point at.
    ``rule`` names the check that raised it (``"negation.added"``, ``"number.absent"``, …) and
    ``confidence`` is the share of such flags that held a real fault on the planted-fault
    benchmark's development sets (:mod:`indexer.lint.confidence`); None where not estimated.
    ``sentence`` is the index of the summary sentence checked (sourced summaries).
    """

    kind: str  # condition | negation | number | absolute | unsupported
    message: str
    summary_text: str
    source_text: str | None = None
    summary_quote: str | None = None
    source_quote: str | None = None
    origin: str = "rules"  # rules | judge
    rule: str = ""
    confidence: float | None = None
    sentence: int | None = None  # the summary sentence it is about, by index


def flags_json(flags: list[LintFlag]) -> list[dict[str, Any]]:
    """Flags as JSON-ready dicts."""
    return [asdict(f) for f in flags]
