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
class SummaryRequest:
    """Everything a summarizer may read to summarize one node.

    Attributes:
        key: The cache key of this summary.
        level: ``section``, ``chapter``, ``document`` or ``cluster``.
        title: The node's heading (None for an untitled document or a cluster).
        heading_path: Headings from the document top to the node.
        passages: Texts of the node's own passages, in order.
        children: ``(title, summary)`` of the node's inner children, in order.
    """

    key: str
    level: str
    title: str | None
    heading_path: list[str]
    passages: list[str] = field(default_factory=list)
    children: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class SummaryResult:
    """One summary, or the reason there is none."""

    key: str
    text: str | None
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    parts: int = 1

    def cache_record(self, identity: SummarizerIdentity) -> NewSummary:
        """This summary as the cache stores it, under the summarizer that wrote it."""
        return NewSummary(
            key=self.key,
            text=str(self.text),
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
    identity: SummarizerIdentity, *, level: str, node_hash: str, child_summaries: Sequence[str]
) -> str:
    """The summary cache key: summarizer identity, the source hash below, and the child summaries.

    ``node_hash`` is the Merkle hash of the node (the exact source text below it), so an edit
    anywhere below changes the key of every ancestor and nothing else. The child summaries are
    included because a parent's summary is written from them: an expert's correction of a child
    therefore rebuilds its ancestors.
    """
    return hash_parts(
        [
            "summary",
            identity.backend,
            identity.model,
            identity.prompt_version,
            level,
            node_hash,
            *child_summaries,
        ]
    )
