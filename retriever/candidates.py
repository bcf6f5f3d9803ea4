"""Candidates of one query and their fusion (reciprocal rank fusion, calibrated per kind).

Passages outnumber summaries about two to one and both kinds compete for the same few ranks: a
plain fusion of the dense and BM25 lists lets whichever kind matches the query's wording best
crowd the other out. Fusion therefore ranks each kind separately inside each list (dense
passages, dense summaries, BM25 passages, BM25 summaries) before fusing, so that the best
summary and the best passage of each list start level, and the reranker decides between them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field

from retriever.snapshot import NodeRecord


@dataclass
class Candidate:
    """One node found by the dense or the lexical search, with its scores so far."""

    node: NodeRecord
    dense: float | None = None
    lexical: float | None = None
    ranks: dict[str, int] = field(default_factory=dict)
    fused: float = 0.0
    score: float = 0.0

    @property
    def node_id(self) -> str:
        """The node's id."""
        return self.node.node_id


@dataclass(frozen=True)
class FusionWeights:
    """Weights of reciprocal rank fusion: ``sum(weight / (rrf_k + rank))`` over the lists."""

    rrf_k: int = 60
    dense: float = 1.0
    lexical: float = 1.0
    per_kind: bool = True


def fuse(candidates: Iterable[Candidate], weights: FusionWeights) -> list[Candidate]:
    """Set ``fused`` (and ``ranks``) on every candidate; return them best first."""
    cands = list(candidates)
    for c in cands:
        c.ranks.clear()
        c.fused = 0.0
    for source, weight in (("dense", weights.dense), ("lexical", weights.lexical)):
        if weight == 0:
            continue
        groups: dict[str, list[Candidate]] = {}
        for c in cands:
            value = c.dense if source == "dense" else c.lexical
            if value is None:
                continue
            key = c.node.kind if weights.per_kind else "all"
            groups.setdefault(key, []).append(c)
        for group in groups.values():
            group.sort(key=functools.partial(_order, source))
            for rank, c in enumerate(group, start=1):
                c.ranks[source] = rank
                c.fused += weight / (weights.rrf_k + rank)
    cands.sort(key=lambda c: (-c.fused, c.node.doc_id, c.node.ordinal))
    return cands


def _order(source: str, c: Candidate) -> tuple[float, str]:
    value = c.dense if source == "dense" else c.lexical
    return (-float(value or 0.0), c.node_id)
