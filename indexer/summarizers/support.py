"""Whether a source span supports a summary sentence, and which spans support a free text.

The test is lexical, stated and measured (``benchmarks/summaries/support.py``): a span supports
a sentence when it holds at least :data:`MIN_COVERAGE` of the sentence's content words (light
stems, derivations by their first letters: :mod:`indexer.words`) and every number the sentence
states. It answers the question a citation check asks, "is this the text the sentence was
written from?", not whether the sentence is faithful to it: a dropped condition or a flipped
negation over the same words passes here and is the audit lint's to find.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from indexer.sourced import SourcedSentence
from indexer.summarizers.framing import without_frame
from indexer.summarizers.sentences import sentence_spans
from indexer.words import content, shared

MIN_COVERAGE = 0.6
"""Share of a sentence's content words its source must hold (chosen on the tuning half)."""

_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")


def numbers(text: str) -> set[str]:
    """The numbers written in ``text`` ("1,000" and "1000" alike)."""
    return {m.group(0).replace(",", "") for m in _NUMBER.finditer(text)}


@dataclass(frozen=True)
class Support:
    """How well a source text supports a sentence."""

    coverage: float
    missing_numbers: tuple[str, ...] = ()

    @property
    def supported(self) -> bool:
        """Enough of the sentence's words, and every number it states, are in the source."""
        return self.coverage >= MIN_COVERAGE and not self.missing_numbers


def support(sentence: str, source: str) -> Support:
    """How well ``source`` supports ``sentence`` (the summarizer's own framing words aside)."""
    sentence = without_frame(sentence)
    words = content(sentence)
    if not words:
        return Support(1.0)
    found = shared(words, content(source))
    missing = sorted(numbers(sentence) - numbers(source))
    return Support(len(found) / len(words), tuple(missing))


def align_text(text: str, sources: Sequence[tuple[int, str]]) -> list[SourcedSentence]:
    """The sentences of a free text (an expert's correction), each with the source sentence
    that supports it best (two adjacent ones where one is not enough).

    Args:
        text: The text to align.
        sources: ``(start, text)`` of each source passage, starts relative to the node.
    """
    candidates: dict[tuple[int, int], str] = {}
    for start, passage in sources:
        for piece in sentence_spans(passage, start):
            candidates.setdefault((piece.start, piece.end), piece.text)
    ordered = sorted(candidates.items())
    out: list[SourcedSentence] = []
    for piece in sentence_spans(text):
        out.append(_aligned(" ".join(piece.text.split()), ordered))
    return out


def _aligned(sentence: str, ordered: list[tuple[tuple[int, int], str]]) -> SourcedSentence:
    best: tuple[float, int] | None = None
    for i, (_, source) in enumerate(ordered):
        score = support(sentence, source).coverage
        if best is None or score > best[0]:
            best = (score, i)
    if best is None:
        return SourcedSentence(sentence, (), verified=False)
    i = best[1]
    spans = [ordered[i][0]]
    found = support(sentence, ordered[i][1])
    if not found.supported and i + 1 < len(ordered):
        pair = f"{ordered[i][1]} {ordered[i + 1][1]}"
        if support(sentence, pair).coverage > found.coverage:
            spans.append(ordered[i + 1][0])
            found = support(sentence, pair)
    return SourcedSentence(sentence, tuple(spans), verified=found.supported)
