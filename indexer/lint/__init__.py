"""Check a summary against its source for the failures experts find in summaries.

Experts auditing summaries of manuals found mostly one failure: a condition smoothed into an
absolute statement. :func:`lint_summary` aligns each summary sentence with the source sentences
it restates (by meaning and by shared words) and compares what constrains the statement:
conditions and qualifiers, negations both ways, numbers with their units, absolutes. The
checks are rules on purpose: fast, deterministic and explainable to an auditor (why not a
parser: see docs/lint.md). An optional judge model (:mod:`indexer.lint.judge`) may add flags.

- :mod:`indexer.lint.check` — the checks; :mod:`indexer.lint.align` — the alignment;
- :mod:`indexer.lint.conditions`, :mod:`indexer.lint.quantities`, :mod:`indexer.lint.cues` — what
  a statement's constraints are; :mod:`indexer.lint.negation`, :mod:`indexer.lint.polarity` —
  negations and settings said the other way round; :mod:`indexer.lint.vectors` — sentence
  vectors;
- :mod:`indexer.lint.confidence` — how likely each flag is to name a real fault (the audit
  queue's order);
- :mod:`indexer.lint.lexical` — the previous, word-overlap lint (the benchmark's baseline).
"""

from __future__ import annotations

from indexer.lint.check import is_addition, lint_summary
from indexer.lint.flags import LintFlag, flags_json
from indexer.lint.linter import LINT_VERSION, Linter

__all__ = ["LINT_VERSION", "LintFlag", "Linter", "flags_json", "is_addition", "lint_summary"]
