"""Query-free selection ("semantic compression"): K clusters of the stored passages, each with
its size, label and representative passages with full provenance. No query, no re-embedding.

``select(index, request)`` is the one entry point of the CLI (``overstory select``) and the HTTP
route (``POST /v1/select``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
from threadpoolctl import threadpool_limits

from indexer.errors import ConflictError, InvalidRequestError
from indexer.store.backends import Row
from retriever.selection.balanced import BalancedMethod
from retriever.selection.base import (
    METHODS,
    Cluster,
    Partition,
    Representative,
    Scope,
    SelectionMethod,
    SelectionRequest,
    SelectionResult,
)
from retriever.selection.centroid import CentroidMethod, centroid_similarity
from retriever.selection.k_choice import choose_k
from retriever.selection.labels import HeadingPaths, label_text, top_terms
from retriever.selection.mmr import mmr
from retriever.selection.rank import RankMethod
from retriever.selection.vectors import PassageSet, load_passages, passage_details

if TYPE_CHECKING:
    from indexer.index import Index
    from indexer.settings import Settings

# Texts per cluster read to find its label's terms (the members nearest its centroid).
LABEL_SAMPLE = 40
# Passages whose tokens are counted to estimate the mean passage length (budget rule).
TOKEN_SAMPLE = 300


def make_method(name: str, settings: Settings) -> SelectionMethod:
    """The selection method registered under ``name``."""
    if name == "centroid":
        return CentroidMethod()
    if name == "rank":
        return RankMethod()
    if name == "balanced":
        return BalancedMethod(overcluster=settings.select_overcluster)
    raise InvalidRequestError(
        f"unknown method {name!r}; choose one of {', '.join(METHODS)}",
        detail={"method": name, "choices": list(METHODS)},
    )


def select(index: Index, request: SelectionRequest, *, seed: int | None = None) -> SelectionResult:
    """Cluster the passages in scope and return each cluster with its representatives.

    Args:
        index: The store (its settings give the defaults: method, seed, MMR weight).
        request: K (or how to choose it), scope, method, representatives per cluster, already
            validated (``SelectionRequest.with_limits`` checks ``k`` against ``max_k``).
        seed: Random seed; default: setting ``select_seed``.

    Returns:
        The clusters, largest first, deterministic for a given store, request and seed.

    Raises:
        InvalidRequestError: K above the passages in scope, an unknown method, an empty scope.
        NotFoundError: An unknown document, or a node that is unknown or not served.
        ConflictError: The documents in scope were embedded by different models.
        StoreInconsistentError: Vectors missing from the vector store.
    """
    settings = index.settings
    method = make_method(request.method or settings.select_method, settings)
    used_seed = settings.select_seed if seed is None else seed
    with threadpool_limits(limits=settings.select_threads, user_api="blas"):
        passages = _passages_in_scope(index, request)
        choice = choose_k(
            requested=request.k,
            budget_tokens=request.budget_tokens,
            per_cluster=request.per_cluster,
            vectors=passages.vectors,
            mean_tokens=lambda: _mean_tokens(index, passages, used_seed),
            seed=used_seed,
        )
        # A K from the budget or the elbow is not checked by the request: cap it here.
        k = min(choice.k, settings.max_k)
        detail = choice.detail
        if k != choice.k:
            detail = replace(detail, limited_by_max_k=settings.max_k)
        partition = method.partition(passages.vectors, k, seed=used_seed, strata=passages.doc_codes)
        picks = _pick(
            passages,
            partition,
            method,
            per_cluster=request.per_cluster,
            seed=used_seed,
            lam=settings.select_mmr_lambda,
        )
        clusters = _clusters(index, passages, picks, partition.centers)
    return SelectionResult(
        k=k,
        k_rule=choice.rule,
        method=method.name,
        n_passages=len(passages),
        per_cluster=request.per_cluster,
        seed=used_seed,
        scope=Scope(documents=passages.documents, under=request.under),
        k_detail=detail,
        method_detail=partition.detail,
        clusters=clusters,
    )


def _passages_in_scope(index: Index, request: SelectionRequest) -> PassageSet:
    passages = load_passages(
        index,
        documents=list(request.documents) if request.documents else None,
        under=request.under,
        use_cache=index.settings.select_vector_cache,
    )
    n = len(passages)
    if n == 0:
        raise InvalidRequestError("there are no passages in the requested scope")
    if request.k is not None and request.k > n:
        raise InvalidRequestError(
            f"k={request.k} is more than the {n} passages in scope",
            detail={"k": request.k, "n_passages": n},
        )
    return passages


@dataclass(frozen=True)
class _Picks:
    """The clusters, largest first: members, representatives and the sample read for a label."""

    clusters: list[int]  # the partition's cluster index at each position
    members: list[np.ndarray]  # rows of each cluster
    chosen: list[list[tuple[int, float]]]  # (row, relevance) of each representative
    samples: list[list[int]]  # the rows nearest the centroid


def _pick(
    passages: PassageSet,
    partition: Partition,
    method: SelectionMethod,
    *,
    per_cluster: int,
    seed: int,
    lam: float,
) -> _Picks:
    vectors, labels, centers = passages.vectors, partition.labels, partition.centers
    k = partition.k
    order = np.argsort(labels, kind="stable")
    members = np.split(order, np.cumsum(np.bincount(labels, minlength=k))[:-1])
    # Largest first; equal sizes in order of their first passage.
    ranking = sorted(range(k), key=lambda j: (-len(members[j]), int(members[j][0])))
    chosen: list[list[tuple[int, float]]] = []
    samples: list[list[int]] = []
    for j in ranking:
        rows = members[j]
        rel = method.relevance(vectors[rows], centers[j], seed=seed + j)
        local = mmr(vectors[rows], rel, per_cluster, lam=lam)
        chosen.append([(int(rows[i]), float(rel[i])) for i in local])
        near = np.argsort(-centroid_similarity(vectors[rows], centers[j]), kind="stable")
        samples.append([int(rows[i]) for i in near[:LABEL_SAMPLE]])
    return _Picks(
        clusters=ranking, members=[members[j] for j in ranking], chosen=chosen, samples=samples
    )


def _clusters(
    index: Index, passages: PassageSet, picks: _Picks, centers: np.ndarray
) -> list[Cluster]:
    vectors = passages.vectors
    wanted = {passages.node_ids[i] for group in picks.samples for i in group}
    wanted.update(passages.node_ids[i] for group in picks.chosen for i, _ in group)
    details = passage_details(index, sorted(wanted))
    if len(details) < len(wanted):
        raise ConflictError(
            "the store changed during the selection (a document was replaced or deleted); retry"
        )
    terms = top_terms(
        [[details[passages.node_ids[i]]["text"] or "" for i in s] for s in picks.samples]
    )
    headings = HeadingPaths(passages.paths)
    out = []
    for pos, (j, rows) in enumerate(zip(picks.clusters, picks.members, strict=True)):
        counts = np.bincount(passages.path_codes[rows], minlength=len(passages.paths))
        path = headings.dominant(counts)
        reps = [
            _representative(
                details[passages.node_ids[i]],
                rank=rank,
                score=score,
                distance=float(np.linalg.norm(vectors[i] - centers[j])),
            )
            for rank, (i, score) in enumerate(picks.chosen[pos], start=1)
        ]
        out.append(
            Cluster(
                cluster=pos + 1,
                size=len(rows),
                share=round(len(rows) / len(passages), 4),
                label=label_text(path, terms[pos]),
                heading_path=path,
                terms=terms[pos],
                representatives=reps,
            )
        )
    return out


def _representative(row: Row, *, rank: int, score: float, distance: float) -> Representative:
    pages = [row["page_start"], row["page_end"]] if row["page_start"] is not None else None
    return Representative(
        rank=rank,
        node_id=row["node_id"],
        score=round(score, 4),
        text=row["text"] or "",
        doc_id=row["doc_id"],
        source=row["source"],
        revision=row["revision"],
        heading_path=json.loads(row["heading_path"]),
        char_start=row["char_start"],
        char_end=row["char_end"],
        pages=pages,
        distance_to_centroid=round(distance, 4),
    )


def _mean_tokens(index: Index, passages: PassageSet, seed: int) -> float:
    from indexer.tokens import count_tokens

    n = len(passages)
    rows = np.arange(n)
    if n > TOKEN_SAMPLE:
        rows = np.sort(np.random.default_rng(seed).choice(n, TOKEN_SAMPLE, replace=False))
    ids = [passages.node_ids[i] for i in rows]
    details = passage_details(index, ids)
    counts = [count_tokens(details[i]["text"] or "") for i in ids]
    return float(np.mean(counts)) if counts else 0.0


__all__ = ["SelectionRequest", "SelectionResult", "make_method", "select"]
