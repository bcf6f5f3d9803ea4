"""Candidates of one query, gathered per kind: passages and summaries, dense and BM25.

Each kind gets its own lists (the nearest ``dense_candidates`` vectors of that kind, the best
``lexical_candidates`` BM25 matches of that kind) from one dense query and one BM25 scoring
pass, and its own fusion, so that the passages of a mixed query are exactly the passages a
passages-only query finds, in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from retriever.candidates import Candidate, FusionWeights, fuse
from retriever.dense import DenseSearcher, kind_of_vector
from retriever.lexical import LexicalIndex
from retriever.record_cache import RecordCache
from retriever.snapshot import Snapshot

KINDS = ("passage", "summary")


@dataclass(frozen=True, kw_only=True)
class PoolSizes:
    """How many candidates each source gives per kind."""

    dense: int = 40
    lexical: int = 40
    lexical_on: bool = True
    weights: FusionWeights = field(default_factory=FusionWeights)


@dataclass
class Pools:
    """Fused candidates of each kind, best first."""

    passages: list[Candidate]
    summaries: list[Candidate]


def gather(
    *,
    dense: DenseSearcher,
    lexical: LexicalIndex,
    records: RecordCache,
    query: str,
    vector: np.ndarray,
    snapshot: Snapshot,
    documents: list[str] | None,
    kinds: frozenset[str],
    sizes: PoolSizes,
) -> Pools:
    """The candidates of each requested kind, fused within the kind."""
    builds = snapshot.builds(documents)
    found: dict[str, dict[str, Candidate]] = {k: {} for k in KINDS}
    # One dense query over-fetching 4x, split by kind (what a single-kind query does).
    hits = dense.search(
        vector, n=sizes.dense * 4, snapshot=snapshot, doc_ids=documents, kinds=kinds
    )
    kept: dict[str, list[tuple[str, float]]] = {k: [] for k in KINDS}
    for vid, sim in hits:
        kind = kind_of_vector(vid)
        if kind in kinds and len(kept[kind]) < sizes.dense:
            kept[kind].append((vid, sim))
    chosen = [hit for kind in KINDS for hit in kept[kind]]
    by_vector = records.by_vector([v for v, _ in chosen], builds, generation=snapshot.generation)
    for vid, sim in chosen:
        for node in by_vector.get(vid, []):
            found[node.kind].setdefault(node.node_id, Candidate(node)).dense = sim
    if sizes.lexical_on:
        lists = lexical.search_kinds(
            query, n=sizes.lexical, snapshot=snapshot, builds=builds, kinds=kinds
        )
        wanted = [nid for hits_ in lists.values() for nid, _ in hits_]
        missing = [nid for nid in wanted if all(nid not in f for f in found.values())]
        by_id = records.by_id(missing, builds, generation=snapshot.generation)
        for kind, hits_ in lists.items():
            for nid, score in hits_:
                cand = found[kind].get(nid)
                if cand is None:
                    if nid not in by_id:
                        continue
                    cand = found[kind][nid] = Candidate(by_id[nid])
                cand.lexical = score
    return Pools(
        passages=fuse(found["passage"].values(), sizes.weights),
        summaries=fuse(found["summary"].values(), sizes.weights),
    )
