"""A summary as a list of sourced sentences: each sentence with the source spans it rests on.

A summarizer writes spans relative to the start of the node it summarizes (``node.char_start``).
The summary cache stores them *anchored*: each span as an offset into one of the node's anchors
(its passages and the headings below it, in order), so that a cached summary stays right
wherever its node moves and whatever text lies between a cluster's passages; publishing a build
resolves them to absolute character ranges of the document's text (and pages, where the format
has them). The cache key covers the exact text of the anchors
(:func:`indexer.summary_pass.layout_hashes`).

``kind`` says what a sentence is for, so that a parent's summary can pick from its children's:
``lead`` (what the node is about), ``fact`` (a value, default, limit or rule with its
condition), ``statement`` (another sentence of the source), ``part`` (a part of the node, by its
heading and lead), ``outline`` (the parts not otherwise named, by their headings).
``verified`` is False where a language model's sentence could not be matched to what it cites.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

KINDS = ("lead", "fact", "statement", "part", "outline")

Pages = Callable[[int, int], "list[int] | None"]


@dataclass(frozen=True)
class SourcedSentence:
    """One summary sentence and the ``[start, end)`` source ranges it rests on."""

    text: str
    spans: tuple[tuple[int, int], ...]
    kind: str = "statement"
    verified: bool = True

    def shifted(self, delta: int) -> SourcedSentence:
        """The same sentence with its spans moved by ``delta`` characters."""
        return SourcedSentence(
            self.text,
            tuple((s + delta, e + delta) for s, e in self.spans),
            self.kind,
            self.verified,
        )

    def to_json(self) -> dict[str, Any]:
        """The sentence as the summary cache stores it."""
        out: dict[str, Any] = {"text": self.text, "spans": [list(s) for s in self.spans]}
        if self.kind != "statement":
            out["kind"] = self.kind
        if not self.verified:
            out["verified"] = False
        return out

    @staticmethod
    def from_json(data: dict[str, Any]) -> SourcedSentence:
        """A sentence from :meth:`to_json`'s form."""
        return SourcedSentence(
            str(data["text"]),
            tuple((int(s), int(e)) for s, e in data.get("spans", [])),
            str(data.get("kind", "statement")),
            bool(data.get("verified", True)),
        )


Anchor = tuple[int, int]
"""A piece of a node's source a span may point into: ``(start relative to the node, length)``."""


def _anchored(span: tuple[int, int], anchors: Sequence[Anchor]) -> list[int]:
    start, end = span
    for i, (a_start, a_len) in enumerate(anchors):
        if a_start <= start < a_start + max(a_len, 1):
            return [i, start - a_start, end - a_start]
    return [-1, start, end]  # outside every anchor: kept relative to the node


def dumps_anchored(sentences: Iterable[SourcedSentence], anchors: Sequence[Anchor]) -> str:
    """Sentences as the summary cache stores them: each span as ``[anchor, start, end]``."""
    out = []
    for s in sentences:
        data = s.to_json()
        data["spans"] = [_anchored(span, anchors) for span in s.spans]
        out.append(data)
    return json.dumps(out, ensure_ascii=False)


def loads_anchored(text: str | None, anchors: Sequence[Anchor]) -> list[SourcedSentence]:
    """Sentences from :func:`dumps_anchored`, spans relative to the node again (a span whose
    anchor is missing is dropped; the cache key makes that impossible for a cache hit)."""
    if not text:
        return []
    out: list[SourcedSentence] = []
    for data in json.loads(text):
        spans = []
        for i, start, end in data.get("spans", []):
            if i == -1:
                spans.append((int(start), int(end)))
            elif 0 <= i < len(anchors):
                spans.append((anchors[i][0] + int(start), anchors[i][0] + int(end)))
        out.append(SourcedSentence.from_json({**data, "spans": spans}))
    return out


def render(sentences: Sequence[SourcedSentence]) -> str:
    """The summary's text: sentences joined, each part (and the outline) on a line of its own."""
    lines: list[list[str]] = [[]]
    for s in sentences:
        if s.kind in ("part", "outline"):
            if lines[-1]:
                lines.append([])
            lines[-1].append(s.text)
            lines.append([])
        else:
            lines[-1].append(s.text)
    return "\n".join(" ".join(line) for line in lines if line)


@dataclass(frozen=True)
class ResolvedSpan:
    """A source span in absolute terms: a character range of the document's text, its pages."""

    char_start: int
    char_end: int
    pages: list[int] | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"char_start", "char_end", "pages"}``."""
        return {"char_start": self.char_start, "char_end": self.char_end, "pages": self.pages}


@dataclass(frozen=True)
class ResolvedSentence:
    """A summary sentence as consumers see it: text, absolute spans, whether it was verified."""

    text: str
    spans: tuple[ResolvedSpan, ...]
    kind: str = "statement"
    verified: bool = True

    def to_json(self) -> dict[str, Any]:
        """``{"text", "spans": [{"char_start", "char_end", "pages"}], "kind", "verified"}``."""
        return {
            "text": self.text,
            "spans": [s.to_json() for s in self.spans],
            "kind": self.kind,
            "verified": self.verified,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> ResolvedSentence:
        """A sentence from :meth:`to_json`'s form."""
        return ResolvedSentence(
            str(data["text"]),
            tuple(
                ResolvedSpan(int(s["char_start"]), int(s["char_end"]), s.get("pages"))
                for s in data.get("spans", [])
            ),
            str(data.get("kind", "statement")),
            bool(data.get("verified", True)),
        )


def resolve(
    sentences: Sequence[SourcedSentence], *, node_start: int, pages: Pages | None = None
) -> list[ResolvedSentence]:
    """Sentences with spans relative to a node turned into absolute spans of the document."""
    out: list[ResolvedSentence] = []
    for s in sentences:
        spans = []
        for start, end in s.spans:
            a, b = node_start + start, node_start + end
            spans.append(ResolvedSpan(a, b, pages(a, b) if pages is not None else None))
        out.append(ResolvedSentence(s.text, tuple(spans), s.kind, s.verified))
    return out


def dumps_resolved(sentences: Iterable[ResolvedSentence]) -> str:
    """Resolved sentences as one JSON text (the ``nodes.sentences`` column)."""
    return json.dumps([s.to_json() for s in sentences], ensure_ascii=False)


def loads_resolved(text: str | None) -> list[ResolvedSentence]:
    """Resolved sentences from :func:`dumps_resolved` (none for NULL)."""
    if not text:
        return []
    return [ResolvedSentence.from_json(d) for d in json.loads(text)]
