"""The summarizer interface and the summary cache key.

A summarizer is asked for many summaries at once (one tree level at a time, children before
parents) so that network backends can run them concurrently; an offline backend just loops.
A failed summary comes back with ``error`` set and ``text`` None: it is never stored as a summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from indexer.hashing import hash_parts
from indexer.sourced import Anchor, SourcedSentence, dumps_anchored, render
from indexer.store.records import NewSummary


@dataclass(frozen=True)
class SummarizerIdentity:
    """What wrote a summary. Part of every cache key: changing any field invalidates the cache."""

    backend: str
    model: str
    prompt_version: str

    @property
    def label(self) -> str:
        """Human-readable ``backend/model@prompt``."""
        return f"{self.backend}/{self.model}@{self.prompt_version}"


@dataclass
class ChildSummary:
    """An inner child of the node being summarized, as its parent's summarizer reads it.

    Attributes:
        title: The child's heading ("" for a cluster).
        text: The child's summary (an expert's correction where there is one).
        sentences: That summary's sentences, spans relative to the *parent's* start.
        heading: The span of the child's heading line, relative to the parent's start.
        passages: How many passages lie below the child (its size).
        children: The titles of the child's own inner children (for an outline of it).
    """

    title: str
    text: str
    sentences: list[SourcedSentence] = field(default_factory=list)
    heading: tuple[int, int] | None = None
    passages: int = 0
    children: list[str] = field(default_factory=list)


@dataclass
class SummaryRequest:
    """Everything a summarizer may read to summarize one node.

    Attributes:
        key: The cache key of this summary.
        level: ``section``, ``chapter``, ``document`` or ``cluster``.
        title: The node's heading (None for an untitled document or a cluster).
        heading_path: Headings from the document top to the node.
        passages: Texts of the node's own passages, in order.
        children: The node's inner children, in order.
        passage_starts: Where each own passage starts, relative to the node's start; None when
            the passages are not text of a document (a change summary's lines): spans are then
            relative to the passages joined by blank lines.
        passage_joins: Per own passage, the document's whitespace between it and the one before
            when they are one text cut by the chunker ("" when they overlap, None when apart or
            unknown): such passages are read as one run.
        heading: The span of the node's own heading, relative to its start.
        anchors: What spans may point into (``indexer.sourced``): the summary is cached with
            its spans anchored to these.
        below: The text below the node as ``(start, text)`` runs, given when its parts are
            clusters (no headings say what it holds; its text's own entries may) and for a
            licence (its version and purpose may lie in its first part's text).
    """

    key: str
    level: str
    title: str | None
    heading_path: list[str]
    passages: list[str] = field(default_factory=list)
    children: list[ChildSummary] = field(default_factory=list)
    passage_starts: list[int] | None = None
    passage_joins: list[str | None] | None = None
    heading: tuple[int, int] | None = None
    anchors: list[Anchor] = field(default_factory=list)
    below: list[tuple[int, str]] = field(default_factory=list)

    def own_text(self) -> list[tuple[int, str]]:
        """The node's own text as ``(start, text)`` runs: overlapping passages merged, each run
        a verbatim slice of the document starting at ``start`` (relative to the node)."""
        starts = self.passage_starts
        if starts is None:
            out, pos = [], 0
            for p in self.passages:
                out.append((pos, p))
                pos += len(p) + 2
            return out
        joins = self.passage_joins or [None] * len(starts)
        runs: list[tuple[int, str]] = []
        for start, text, join in sorted(zip(starts, self.passages, joins, strict=True)):
            if runs:
                run_start, run_text = runs[-1]
                run_end = run_start + len(run_text)
                if start <= run_end:
                    tail = text[run_end - start :]
                    runs[-1] = (run_start, run_text + tail)
                    continue
                if join is not None and start == run_end + len(join):
                    runs[-1] = (run_start, run_text + join + text)
                    continue
            runs.append((start, text))
        return runs


@dataclass
class SummaryResult:
    """One summary, or the reason there is none."""

    key: str
    text: str | None
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    parts: int = 1
    sentences: list[SourcedSentence] = field(default_factory=list)

    @staticmethod
    def of_sentences(
        key: str,
        sentences: list[SourcedSentence],
        *,
        input_tokens: int = 0,
        output_tokens: int = 0,
        parts: int = 1,
    ) -> SummaryResult:
        """A result whose text is its sentences rendered."""
        return SummaryResult(
            key,
            render(sentences),
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            parts=parts,
            sentences=sentences,
        )

    def cache_record(
        self, identity: SummarizerIdentity, anchors: list[Anchor] | None = None
    ) -> NewSummary:
        """This summary as the cache stores it, under the summarizer that wrote it, its spans
        anchored to ``anchors`` (the request's)."""
        return NewSummary(
            key=self.key,
            text=str(self.text),
            sentences_json=dumps_anchored(self.sentences, anchors or []),
            backend=identity.backend,
            model=identity.model,
            prompt_version=identity.prompt_version,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            parts=self.parts,
        )


class Summarizer(Protocol):
    """Writes summaries; ``identity`` names backend, model and prompt version."""

    identity: SummarizerIdentity

    async def summarize(self, requests: Sequence[SummaryRequest]) -> list[SummaryResult]:
        """One result per request, in the same order. Never raises for a single failed node."""
        ...


def cache_key(
    identity: SummarizerIdentity,
    *,
    level: str,
    node_hash: str,
    layout: str,
    child_summaries: Sequence[str],
) -> str:
    """The summary cache key: summarizer identity, the source below, and the child summaries.

    ``node_hash`` is the Merkle hash of the node (the normalized source text below it), so an
    edit anywhere below changes the key of every ancestor and nothing else. ``layout`` hashes the
    exact characters below the node and where they stand relative to its start, which is what
    the summary's sentence spans point into (a whitespace-only edit keeps the Merkle hash but
    moves spans). The child summaries are included because a parent's summary is written from
    them: an expert's correction of a child therefore rebuilds its ancestors.
    """
    return hash_parts(
        [
            "summary",
            identity.backend,
            identity.model,
            identity.prompt_version,
            level,
            node_hash,
            layout,
            *child_summaries,
        ]
    )
