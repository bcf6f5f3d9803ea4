"""The retriever: one query → dense + BM25 candidates of passages and of summaries → fusion and
rerank within each kind → the summaries above the best passages → the mix, weighed by how the
query is read (passage, section or document) → labelled results with provenance, all from one
snapshot of the served revisions.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from indexer.embedding import Embedder, encoder_identity, make_embedder
from indexer.encoders import require_encoder
from indexer.errors import NotFoundError
from indexer.index import Index
from indexer.settings import Settings
from indexer.validation import validated
from retriever.answers import Hit, QueryAnswer
from retriever.candidates import Candidate, FusionWeights
from retriever.changes import Routing, route
from retriever.changes import answer as answer_change
from retriever.coalesce import Coalescer
from retriever.dense import DenseSearcher
from retriever.follower import PublishFollower
from retriever.heads import Prepared, document_titles, named_summaries, summaries_above
from retriever.heap import settle
from retriever.intent import Intent, IntentModel, forced_intent, level_of
from retriever.lexical import LexicalIndex
from retriever.mix import MixModel
from retriever.pools import KINDS, Pools, PoolSizes, gather
from retriever.record_cache import RecordCache
from retriever.request import QueryLimits, QueryRequest
from retriever.rerankers import make_reranker
from retriever.rerankers.base import Reranker, RerankInput
from retriever.results import hit, hits_of, reviewed
from retriever.skeleton import Skeletons
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
    mix: bool = True  # False: both kinds merged by their reranker scores alone (no intent)

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


@dataclass(frozen=True)
class Ranking:
    """A query's candidates, best first, and how the query was read (None without the mix)."""

    candidates: list[Candidate]
    intent: Intent | None


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
        follower: PublishFollower | None = None,
        coalesce: bool = True,
    ) -> None:
        settings = index.settings
        self.index = index
        self.catalog = index.catalog
        self.pipeline = pipeline or Pipeline.from_settings(settings)
        self.limits = QueryLimits(max_chars=settings.max_query_chars, max_k=settings.max_k)
        self.request_model = QueryRequest.with_limits(self.limits)
        self._embedder = embedder
        self._reranker = reranker
        self._lock = threading.Lock()
        self.lexical = lexical or LexicalIndex(settings.store / "lexical", self.catalog)
        self.follower = follower
        self.snapshots = SnapshotSource(self.catalog, follower=follower)
        self.skeletons = Skeletons(self.catalog)
        self.records = RecordCache(self.catalog)
        self._intent_model: IntentModel | None = None
        self._mix_model: MixModel | None = None
        self._dense: DenseSearcher | None = None
        self.encoder: Coalescer[str, np.ndarray] | None = (
            Coalescer(self._encode_batch) if coalesce else None
        )
        # Query vectors of one model against stored vectors of another rank nonsense.
        require_encoder(
            self.catalog, embedder.name if embedder is not None else encoder_identity(settings)
        )

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
    def intent_model(self) -> IntentModel:
        """How queries are read (``retriever/models/intent.json``)."""
        if self._intent_model is None:
            self._intent_model = IntentModel.load()
        return self._intent_model

    @property
    def mix_model(self) -> MixModel:
        """How passages and summaries are merged (``retriever/models/mix.json``)."""
        if self._mix_model is None:
            self._mix_model = MixModel.load()
        return self._mix_model

    @property
    def dense(self) -> DenseSearcher:
        """Dense search over the index's vector store."""
        if self._dense is None:
            self._dense = DenseSearcher(self.index.vectors, self.catalog)
        return self._dense

    def encode(self, text: str) -> np.ndarray:
        """The query's unit vector. Queries that arrive while another is being encoded are
        encoded together in one forward pass (:mod:`retriever.coalesce`), unless the retriever
        was made with ``coalesce=False``."""
        if self.encoder is None:
            return self._encode_batch([text])[0]
        return self.encoder(text)

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of queries, encoded with the query thread count (``torch_threads``).

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
        return embedder.embed(texts)

    def warm(self) -> None:
        """Load what queries otherwise load on first use, except the encoder: the BM25 index,
        the models of the mix and the inner nodes of every served build (the HTTP service
        calls this in the background when it starts)."""
        snapshot = self.snapshots.take()
        self.lexical.refresh(snapshot)
        _ = self.intent_model, self.mix_model
        self.skeletons.warm(snapshot.builds())
        settle()

    # querying ------------------------------------------------------------------------------
    def request(self, query: object, **options: Any) -> QueryRequest:
        """Validate raw values (CLI flags, JSON) with ``request_model`` (this store's limits).

        Raises:
            InvalidRequestError: The query is empty, too long or binary; ``k`` is out of range;
                an option is unknown or malformed.
        """
        return validated(self.request_model, {"query": query, **options})

    def query(self, request: QueryRequest, *, pipeline: Pipeline | None = None) -> QueryAnswer:
        """Run a query; the answer of ``POST /v1/query`` and ``overstory query --json``.

        The steps, in order: the route (a question about change is answered by comparing
        revisions, ``kind: "comparison"``; ``request.route`` forces either), the snapshot of
        served revisions, the query vector, the ranking (candidates, how the query is read,
        the mix), the hits of the top ``k``, and their audit state.

        Raises:
            NotFoundError: A document in ``request.documents`` is not indexed.
            GoneError: A change question names a pruned revision.
            BackendError: The vector store failed.
        """
        routing = route(request.query, forced=request.route)
        if routing.route == "comparison":
            return self._compare(request, routing)
        snapshot = self.snapshots.take()
        _check_documents(request, snapshot)
        vector = self.encode(request.query)
        ranking = self.rank(request, vector, snapshot, pipeline=pipeline or self.pipeline)
        top = ranking.candidates[: request.k]
        hits = hits_of(self.catalog, top, snapshot)
        if request.expand:
            hits = [
                self._expanded(h, c.node, vector, snapshot) for h, c in zip(hits, top, strict=True)
            ]
        answer = QueryAnswer(
            query=request.query,
            kind="retrieval",
            route=routing.reading(),
            results=reviewed(self.catalog, hits),
        )
        if ranking.intent is not None:
            answer = answer.model_copy(update={"intent": ranking.intent.reading()})
        settle()  # the first answer loaded what the process keeps: out of the collector's walk
        return answer

    def _compare(self, request: QueryRequest, routing: Routing) -> QueryAnswer:
        summarizer = self.index.summarizer if request.change_summary else None
        return answer_change(
            self.catalog,
            request.query,
            routing=routing,
            documents=request.documents,
            summarizer=summarizer,
        )

    def _expanded(self, item: Hit, node: NodeRecord, vector: np.ndarray, snapshot: Snapshot) -> Hit:
        """A summary hit with its best supporting passages (``expand``)."""
        if node.is_passage:
            return item
        return item.model_copy(update={"support": self._support(node, vector, snapshot)})

    def rank(
        self,
        request: QueryRequest,
        vector: np.ndarray,
        snapshot: Snapshot,
        *,
        pipeline: Pipeline,
    ) -> Ranking:
        """Candidates of the snapshot's builds for a query, best first, ``score`` set, and how
        the query was read (None for a ranking without the mix)."""
        if not pipeline.rerank:
            pools = self._pools(request, vector, snapshot, pipeline, request.kinds)
            ranked = sorted(
                pools.passages + pools.summaries,
                key=lambda c: (-c.fused, c.node.doc_id, c.node.ordinal),
            )
            for c in ranked:
                c.score = c.fused
            return Ranking(ranked, None)
        prepared = self.prepare(request, vector, snapshot, pipeline=pipeline)
        intent = self.read_intent(request, vector)
        if request.kinds == {"passage"}:
            return Ranking(prepared.passages + prepared.rest, intent)
        if pipeline.mix:
            head = self.mix_model.rank(prepared.mix_input(intent))
            if intent.source == "request":
                # An explicit reading is an order, not a hint: its level comes first.
                head.sort(key=lambda c: level_of(c.node) != intent.label)
        else:
            head = sorted(prepared.passages + prepared.summaries, key=_by_score)
        ranked = [c for c in head + prepared.rest if c.node.kind in request.kinds]
        return Ranking(ranked, intent if pipeline.mix else None)

    def read_intent(self, request: QueryRequest, vector: np.ndarray) -> Intent:
        """How the query is read: the request's choice, else the intent model's estimate."""
        if request.intent != "auto":
            return forced_intent(request.intent)
        return self.intent_model.estimate(request.query, vector)

    def prepare(
        self,
        request: QueryRequest,
        vector: np.ndarray,
        snapshot: Snapshot,
        *,
        pipeline: Pipeline | None = None,
    ) -> Prepared:
        """Each kind's candidates reranked within the kind, before the mix (see ``heads``)."""
        pipeline = pipeline or self.pipeline
        docs = list(request.documents) if request.documents else None
        kinds = request.kinds if request.kinds == {"passage"} else frozenset(KINDS)
        pools = self._pools(request, vector, snapshot, pipeline, kinds)
        n = max(pipeline.rerank_candidates, request.k)
        passages, summaries = _head(pools.passages, n), _head(pools.summaries, n)
        below: dict[str, list[str]] = {}
        if "summary" in kinds and pipeline.mix:
            above, below = summaries_above(
                passages,
                skeletons=self.skeletons,
                snapshot=snapshot,
                documents=docs,
                present={c.node_id for c in summaries},
            )
            summaries += above
            summaries += named_summaries(
                request.query,
                skeletons=self.skeletons,
                candidates=passages + summaries,
                present={c.node_id for c in summaries},
            )
        head = passages + summaries
        scores = self.reranker.rerank(self.rerank_input(request.query, vector, head))
        for c, score in zip(head, scores, strict=True):
            c.score = float(score)
        taken = {c.node_id for c in head}
        rest = sorted(
            (c for c in pools.passages[n:] + pools.summaries[n:] if c.node_id not in taken),
            key=lambda c: -c.fused,
        )
        for c in rest:
            c.score = c.fused
        return Prepared(
            query=request.query,
            passages=sorted(passages, key=_by_score),
            summaries=sorted(summaries, key=_by_score),
            below=below,
            rest=rest,
            titles=document_titles(summaries, skeletons=self.skeletons, snapshot=snapshot),
        )

    def _pools(
        self,
        request: QueryRequest,
        vector: np.ndarray,
        snapshot: Snapshot,
        pipeline: Pipeline,
        kinds: frozenset[str],
    ) -> Pools:
        return gather(
            dense=self.dense,
            lexical=self.lexical,
            records=self.records,
            query=request.query,
            vector=vector,
            snapshot=snapshot,
            documents=list(request.documents) if request.documents else None,
            kinds=kinds,
            sizes=PoolSizes(
                dense=pipeline.dense_candidates,
                lexical=pipeline.lexical_candidates,
                lexical_on=pipeline.lexical,
                weights=pipeline.weights,
            ),
        )

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

    def _support(self, node: NodeRecord, vector: np.ndarray, snapshot: Snapshot) -> list[Hit]:
        """The passages below a summary that best match the query (so that a chatbot can quote)."""
        scored = self.closest_below(node, vector)[:SUPPORT_PASSAGES]
        texts = self.catalog.nodes.texts_of([p for p, _ in scored])
        doc = snapshot.by_build[node.build_id]
        return [
            hit(
                p,
                doc,
                rank=None,
                score=cosine,
                text=texts.get(p.node_id, ("", None))[0],
                summarizer=None,
            )
            for p, cosine in scored
        ]

    def closest_below(self, node: NodeRecord, vector: np.ndarray) -> list[tuple[NodeRecord, float]]:
        """The passages below ``node`` with their cosine to ``vector``, closest first (a passage
        without a vector last, at 0), ties in reading order."""
        below = self.catalog.nodes.records_below(node)
        vecs = self.dense.vectors_of(sorted({p.vector_id for p in below if p.vector_id}))
        scored = [
            (p, float(vecs[p.vector_id] @ vector) if p.vector_id in vecs else None) for p in below
        ]
        scored.sort(key=lambda pc: (-pc[1] if pc[1] is not None else 1.0, pc[0].ordinal))
        return [(p, c if c is not None else 0.0) for p, c in scored]


def _head(fused: list[Candidate], n: int, *, per_source: int = 5) -> list[Candidate]:
    """The fused top ``n`` and the best ``per_source`` of each source list: rank fusion buries
    a candidate that only one source ranks first (a heading BM25 matches word for word)."""
    head = fused[:n]
    taken = {c.node_id for c in head}
    for value in (lambda c: c.dense, lambda c: c.lexical):
        scored = [c for c in fused if value(c) is not None]
        for c in sorted(scored, key=lambda c: -(value(c) or 0.0))[:per_source]:
            if c.node_id not in taken:
                taken.add(c.node_id)
                head.append(c)
    return head


def _by_score(c: Candidate) -> tuple[float, float, str, int]:
    return (-c.score, -c.fused, c.node.doc_id, c.node.ordinal)


def _check_documents(request: QueryRequest, snapshot: Snapshot) -> None:
    for doc_id in request.documents or ():
        if doc_id not in snapshot.documents:
            raise NotFoundError(f"no document {doc_id!r}", detail={"doc_id": doc_id})
