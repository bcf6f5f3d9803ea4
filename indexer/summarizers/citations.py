"""Numbered source lines for the language-model backends, and the check of what they cite.

A model is shown the node's source as numbered lines — each sentence of the node's own text,
then each sentence of its children's summaries — and must end every sentence it writes with the
numbers of the lines it restates ("… at 25 N·m [4][5]."). Each line carries the spans it stands
for (a source sentence its own; a child's summary sentence the spans *it* rests on), so a cited
sentence gets spans without any guess. A citation is accepted when the cited lines support the
sentence by the stated test of :mod:`indexer.summarizers.support`; a sentence that cites nothing
or whose citations fail keeps the spans of the line that supports it best and is marked
unverified.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexer.sourced import SourcedSentence
from indexer.summarizers.base import SummaryRequest
from indexer.summarizers.sentences import sentence_spans
from indexer.summarizers.support import support

_CITATION = re.compile(r"\s*\[(\d+(?:\s*(?:[,;]|-|–|and)\s*\d+)*)\]")
_RANGE = re.compile(r"(\d+)\s*[-–]\s*(\d+)")


@dataclass(frozen=True)
class Line:
    """One numbered line of a prompt: a sentence of the source or of a child's summary.

    Attributes:
        number: As the prompt shows it (1-based).
        text: The sentence.
        spans: The source spans it stands for, relative to the node's start.
        group: The child's title for a line of a child's summary; None for the node's own text.
    """

    number: int
    text: str
    spans: tuple[tuple[int, int], ...]
    group: str | None = None


def numbered_lines(request: SummaryRequest) -> list[Line]:
    """The lines a model is shown for ``request``: its own sentences, then its children's."""
    lines: list[Line] = []
    for start, text in request.own_text():
        for piece in sentence_spans(text, start):
            lines.append(
                Line(len(lines) + 1, " ".join(piece.text.split()), ((piece.start, piece.end),))
            )
    for child in request.children:
        group = child.title or "(untitled)"
        sentences = child.sentences or [SourcedSentence(child.text, ())]
        for s in sentences:
            if s.text.strip():
                lines.append(Line(len(lines) + 1, s.text, s.spans, group))
    return lines


def renumbered(sentences: list[SourcedSentence], group: str | None = None) -> list[Line]:
    """Sentences (a part's summary) as lines numbered from 1, to be combined."""
    return [Line(i, s.text, s.spans, group) for i, s in enumerate(sentences, 1)]


def render_lines(lines: list[Line]) -> str:
    """Lines as a prompt shows them, a child's lines under its title."""
    out: list[str] = []
    group: str | None = None
    for line in lines:
        if line.group != group and line.group is not None:
            out.append(f"{line.group}:")
        group = line.group
        out.append(f"[{line.number}] {line.text}")
    return "\n".join(out)


def _numbers(marker: str) -> list[int]:
    out: list[int] = []
    for part in re.split(r"\s*(?:[,;]|and)\s*", marker):
        m = _RANGE.fullmatch(part.strip())
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            out.extend(range(a, min(b, a + 20) + 1))
        elif part.strip().isdigit():
            out.append(int(part))
    return out


@dataclass(frozen=True)
class CitedSummary:
    """A model's answer as sourced sentences, and how many of them passed the check."""

    sentences: list[SourcedSentence]

    @property
    def verified(self) -> bool:
        """Every sentence cites lines that support it."""
        return all(s.verified for s in self.sentences)

    @property
    def failed(self) -> list[SourcedSentence]:
        """The sentences whose citations are missing or do not support them."""
        return [s for s in self.sentences if not s.verified]


def parse_cited(answer: str, lines: list[Line]) -> CitedSummary:
    """The sentences of a model's answer with the spans of the lines they cite, checked."""
    by_number = {line.number: line for line in lines}
    texts: list[str] = []
    cites: list[list[int]] = []
    for piece in sentence_spans(answer):
        cited = [n for m in _CITATION.finditer(piece.text) for n in _numbers(m.group(1))]
        text = " ".join(_CITATION.sub("", piece.text).split())
        text = re.sub(r"\s+([.,;:!?])", r"\1", text)
        if not re.search(r"[A-Za-z0-9]", text):
            if texts:  # citations written after the sentence end
                cites[-1].extend(cited)
            continue
        texts.append(text)
        cites.append(cited)
    return CitedSummary([_checked(t, c, by_number) for t, c in zip(texts, cites, strict=True)])


def _checked(text: str, cited: list[int], by_number: dict[int, Line]) -> SourcedSentence:
    valid = [by_number[n] for n in dict.fromkeys(cited) if n in by_number]
    if valid:
        found = support(text, " ".join(line.text for line in valid))
        spans = tuple(dict.fromkeys(s for line in valid for s in line.spans))
        if found.supported:
            return SourcedSentence(text, spans, "statement", True)
    best = max(by_number.values(), key=lambda line: support(text, line.text).coverage, default=None)
    spans = best.spans if best is not None else ()
    return SourcedSentence(text, spans, "statement", False)


RETRY_NOTE = (
    "Some sentences of your summary did not end with the numbers of lines that say the same "
    "thing:\n{failed}\nWrite the summary again. End every sentence with the numbers of the "
    "lines it restates, like [3] or [2][5], and write nothing those lines do not say."
)


def retry_note(failed: list[SourcedSentence]) -> str:
    """The message asking a model to try again after failed citations."""
    return RETRY_NOTE.format(failed="\n".join(f"- {s.text}" for s in failed[:5]))
