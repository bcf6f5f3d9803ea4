"""Which source sentences a summary sentence restates: by meaning and by shared words.

A pair's score is the mean of the cosine of the two sentences' vectors
(:mod:`indexer.lint.vectors`) and the share of the summary sentence's content words that the
source sentence has (a summary sentence often restates a part of a longer source sentence, so
the share is of the summary's words, not of both). Without vectors the score is the word share.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexer.lint.text import Span, content
from indexer.lint.vectors import SentenceVectors

TOP = 3


@dataclass(frozen=True)
class Candidate:
    """A source sentence a summary sentence may restate."""

    source: Span
    score: float
    lexical: float
    dense: float


def align(
    summary: list[Span], source: list[Span], vectors: SentenceVectors | None
) -> list[list[Candidate]]:
    """For each summary sentence, its best source sentences (up to :data:`TOP`), best first."""
    if not summary or not source:
        return [[] for _ in summary]
    words_s = [content(s.text) for s in summary]
    words_t = [content(t.text) for t in source]
    lexical = np.zeros((len(summary), len(source)), dtype=np.float32)
    for i, ws in enumerate(words_s):
        if not ws:
            continue
        for j, wt in enumerate(words_t):
            lexical[i, j] = len(ws & wt) / len(ws)
    if vectors is not None:
        vs = vectors.vectors([s.text for s in summary])
        vt = vectors.vectors([t.text for t in source])
        dense = np.clip(vs @ vt.T, 0.0, 1.0)
        score = 0.5 * dense + 0.5 * lexical
    else:
        dense = np.zeros_like(lexical)
        score = lexical
    out: list[list[Candidate]] = []
    for i in range(len(summary)):
        best = np.argsort(-score[i], kind="stable")[:TOP]
        out.append(
            [
                Candidate(source[j], float(score[i, j]), float(lexical[i, j]), float(dense[i, j]))
                for j in best
            ]
        )
    return out
