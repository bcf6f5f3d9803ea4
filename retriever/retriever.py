"""The retriever: one query → dense + BM25 candidates over passages and summaries → fusion →
rerank → labelled results with provenance, all from one snapshot of the served revisions.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from indexer.embedding import Embedder, make_embedder
from indexer.errors import NotFoundError
from indexer.index import Index
from indexer.reviews import review_states_by_id
from indexer.settings import Settings
from retriever.candidates import Candidate, FusionWeights, fuse
from retriever.dense import DenseSearcher
from retriever.lexical import LexicalIndex
from retriever.request import QueryLimits, QueryRequest
from retriever.rerankers import make_reranker
from retriever.rerankers.base import Reranker, RerankInput
from retriever.results import result_json
from retriever.snapshot import NodeRecord, Snapshot, SnapshotSource

SUPPORT_PASSAGES = 3


@dataclass(frozen=True)
class Pipeline:
    """How candidates are gathered and ordered (the flat baseline is one of these)."""

    dense_candidates: int = 40
    lexical_candidates: int = 40
    rerank_candidates: int = 20
    weights: FusionWeights = field(default_factory=FusionWeights)
    lexical: bool = True
    rerank: bool = True

    @staticmethod
    def from_settings(settings: Settings) -> Pipeline:
        """The pipeline configured by the settings."""
        return Pipeline(
            dense_candidates=settings.dense_candidates,
            lexical_candidates=settings.lexical_candidates,
            rerank_candidates=settings.rerank_candidates,
            weights=FusionWeights(
                rrf_k=settings.rrf_k,
                dense=settings.dense_weight,
                lexical=settings.lexical_weight,
            ),
        )


FLAT = Pipeline(lexical=False, rerank=False)
"""The flat baseline of the evaluation: passages only (set by the caller), dense only."""


class Retriever:
    """Queries over an :class:`~indexer.index.Index`, safe to share between threads."""

    def __init__(
        self,
        index: Index,
        *,
        embedder: Embedder | None = None,
        reranker: Reranker | None = None,
        pipeline: Pipeline | None = None,
        lexical: LexicalIndex | None = None,
    ) -> None:
        settings = index.settings
        self.index = index
        self.catalog = index.catalog
        self.pipeline = pipeline or Pipeline.from_settings(settings)
        self.limits = QueryLimits(max_chars=settings.max_query_chars, max_k=settings.max_k)
        self._embedder = embedder
        self._reranker = reranker
        self._lock = threading.Lock()
        self.lexical = lexical or LexicalIndex(settings.store / "lexical", self.catalog)
        self.snapshots = SnapshotSource(self.catalog)
        self._dense: DenseSearcher | None = None

    # collaborators, created on first use ---------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        """The query encoder (its own torch thread count: setting ``torch_threads``)."""
        if self._embedder is None:
            with self._lock:
                if self._embedder is None:
                    self._embedder = make_embedder(self.index.settings, purpose="query")
        return self._embedder

    @property
    def reranker(self) -> Reranker:
        """The configured reranker (setting ``reranker``)."""
        if self._reranker is None:
            with self._lock:
                if self._reranker is None:
                    self._reranker = make_reranker(self.index.settings)
        return self._reranker

    @property
    def dense(self) -> DenseSearcher:
        """Dense search over the index's vector store."""
        if self._dense is None:
            self._dense = DenseSearcher(self.index.vectors, self.catalog)
        return self._dense

    def encode(self, text: str) -> np.ndarray:
        """The query's unit vector, encoded with the query thread count (``torch_threads``).

        Torch's thread count is process-wide and an ingest embedder in the same process (the
        HTTP service's jobs) sets its own; two threads cost 155–500 ms per query when another
        process holds a core, one thread 15–35 ms. So the query path sets it back before
        encoding, in favour of the chatbot's latency over ingest throughput.
        """
        embedder = self.embedder
        threads = getattr(embedder, "threads", None)
        torch = sys.modules.get("torch")
        if threads is not None and torch is not None and torch.get_num_threads() != threads:
            torch.set_num_threads(threads)
        return embedder.embed([text])[0]

    # querying ------------------------------------------------------------------------------
    def request(self, query: object, **options: Any) -> QueryRequest:
        """Validate a raw request against this retriever's limits (see QueryRequest.create)."""
        return QueryRequest.create(query, limits=self.limits, **options)

    def query(self, request: QueryRequest, *, pipeline: Pipeline | None = None) -> dict[str, Any]:
        """Run a query; the JSON of ``POST /v1/query`` and ``overstory query --json``.

        Raises:
            NotFoundError: A document in ``request.documents`` is not indexed.
            BackendError: The vector store failed.
        """
        snapshot = self.snapshots.take()
        _check_documents(request, snapshot)
        vector = self.encode(request.query)
        ranked = self.rank(request, vector, snapshot, pipeline=pipeline or self.pipeline)
        top = ranked[: request.k]
        texts = self.catalog.nodes.texts_of([c.node for c in top])
        results = []
        for rank, cand in enumerate(top, start=1):
            text, writer = texts.get(cand.node_id, ("", None))
            item = result_json(
                cand.node,
                snapshot.by_build[cand.node.build_id],
                rank=rank,
                score=cand.score,
                text=text,
                summarizer=writer,
            )
            if request.expand and not cand.node.is_passage:
                item["support"] = self._support(cand.node, vector, snapshot)
            results.append(item)
        self._apply_reviews(results)
        return {"query": request.query, "results": results}

    def _apply_reviews(self, results: list[dict[str, Any]]) -> None:
        """Summary results carry their audit status; a corrected one serves the expert's text."""
        ids = [r["node_id"] for r in results if r["kind"] == "summary"]
        if not ids:
            return
        states = review_states_by_id(self.catalog, ids)
        for item in results:
            if item["kind"] != "summary":
                continue
            state = states.get(item["node_id"])
            item["review"] = state.status if state is not None else "pending"
            if state is not None and state.correction is not None:
                item["text"] = state.correction

    def rank(
        self,
        request: QueryRequest,
        vector: np.ndarray,
        snapshot: Snapshot,
        *,
        pipeline: Pipeline,
    ) -> list[Candidate]:
        """Candidates of the snapshot's builds for a query, best first, ``score`` set."""
        docs = list(request.documents) if request.documents else None
        builds = snapshot.builds(docs)
        kinds = request.kinds
        cands: dict[str, Candidate] = {}
        dense = self.dense.search(
            vector, n=pipeline.dense_candidates, snapshot=snapshot, doc_ids=docs, kinds=kinds
        )
        by_vector = self.catalog.nodes.records_by_vector([v for v, _ in dense], builds)
        for vid, sim in dense:
            for node in by_vector.get(vid, []):
                if node.kind in kinds:
                    cands.setdefault(node.node_id, Candidate(node)).dense = sim
        if pipeline.lexical:
            lexical = self.lexical.search(
                request.query,
                n=pipeline.lexical_candidates,
                snapshot=snapshot,
                builds=builds,
                kinds=kinds,
            )
            missing = [nid for nid, _ in lexical if nid not in cands]
            found = self.catalog.nodes.records_by_id(missing, builds)
            for nid, score in lexical:
                cand = cands.get(nid)
                if cand is None:
                    if nid not in found:
                        continue
                    cand = cands[nid] = Candidate(found[nid])
                cand.lexical = score
        ranked = fuse(cands.values(), pipeline.weights)
        for c in ranked:
            c.score = c.fused
        if not pipeline.rerank or not ranked:
            return ranked
        head = ranked[: max(pipeline.rerank_candidates, request.k)]
        data = self.rerank_input(request.query, vector, head)
        scores = self.reranker.rerank(data)
        for c, s in zip(head, scores, strict=True):
            c.score = float(s)
        head = sorted(head, key=lambda c: (-c.score, -c.fused, c.node.doc_id, c.node.ordinal))
        return head + ranked[len(head) :]

    def rerank_input(
        self, query: str, vector: np.ndarray, candidates: list[Candidate]
    ) -> RerankInput:
        """What a reranker reads about fused candidates (texts and cosines fetched on demand)."""
        return RerankInput(
            query=query,
            query_vector=vector,
            candidates=candidates,
            _texts=lambda: self._texts(candidates),
            _cosines=lambda: self._cosines(candidates, vector),
        )

    def _texts(self, cands: list[Candidate]) -> dict[str, str]:
        return {k: v[0] for k, v in self.catalog.nodes.texts_of([c.node for c in cands]).items()}

    def _cosines(self, cands: list[Candidate], vector: np.ndarray) -> dict[str, float]:
        out = {c.node_id: c.dense for c in cands if c.dense is not None}
        todo = [c for c in cands if c.dense is None and c.node.vector_id]
        vecs = self.dense.vectors_of([c.node.vector_id for c in todo if c.node.vector_id])
        for c in todo:
            v = vecs.get(c.node.vector_id or "")
            out[c.node_id] = float(v @ vector) if v is not None else 0.0
        return {k: float(v) for k, v in out.items() if v is not None}

    def _support(
        self, node: NodeRecord, vector: np.ndarray, snapshot: Snapshot
    ) -> list[dict[str, Any]]:
        """The passages below a summary that best match the query (so that a chatbot can quote)."""
        below = self.catalog.nodes.records_below(node)
        if not below:
            return []
        vecs = self.dense.vectors_of(sorted({p.vector_id for p in below if p.vector_id}))
        scored = sorted(
            below,
            key=lambda p: (
                -float(vecs[p.vector_id] @ vector) if p.vector_id in vecs else 1.0,
                p.ordinal,
            ),
        )[:SUPPORT_PASSAGES]
        texts = self.catalog.nodes.texts_of(scored)
        doc = snapshot.by_build[node.build_id]
        return [
            result_json(
                p,
                doc,
                rank=None,
                score=float(vecs[p.vector_id] @ vector) if p.vector_id in vecs else 0.0,
                text=texts.get(p.node_id, ("", None))[0],
                summarizer=None,
            )
            for p in scored
        ]


def _check_documents(request: QueryRequest, snapshot: Snapshot) -> None:
    for doc_id in request.documents or ():
        if doc_id not in snapshot.documents:
            raise NotFoundError(f"no document {doc_id!r}", detail={"doc_id": doc_id})
