"""What an ingest would cost, without doing it: ``overstory ingest --dry-run``.

The plan runs the real build's summary pass (``ingest._summarize``) on the real tree, with two
stand-ins: a summarizer that calls no model (it records a token estimate and answers with a
placeholder that stands for "the summary this run would compute") and a catalog that reads the
summary cache but never writes. So the count of summaries to compute is exact by construction:
the same tree, the same cache keys, the same skipping of nodes without passages and of duplicate
keys. A parent of a node to compute is itself computed (its key includes the new child summary),
which the placeholder reproduces.

Nothing is written: no build, no summary, no vector. The tree's shape can depend on passage
vectors (cluster levels for headingless or flat parts); those are read from the vector store and
the missing ones embedded in memory, only if the clustering hook actually asks for them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, cast

import numpy as np

from indexer.errors import TooLargeError
from indexer.hashing import hash_bytes, hash_parts, hash_text
from indexer.ingest import _EMBED_CHUNK, IngestContext, _summarize, served_state, vector_id
from indexer.parsers import parse_bytes
from indexer.progress import no_progress
from indexer.settings import Settings
from indexer.store.catalog import Catalog
from indexer.summarizers.base import SummarizerIdentity, SummaryRequest, SummaryResult
from indexer.summarizers.estimate import PENDING, TokenEstimate, TokenEstimator
from indexer.summarizers.prompts import words_for
from indexer.tree import TreeNode, build_tree, compute_hashes

ESTIMATE_METHOD = (
    "bundled MiniLM WordPiece token counts x1.1 (chat-model tokenizers usually agree within "
    "about 15%); output = the summary length asked for (summary_tokens, capped by "
    "summarizer_max_new_tokens); nodes too long for summarizer_context_tokens counted in parts"
)


@dataclass
class DocumentPlan:
    """What ingesting one document would do."""

    doc_id: str
    source: str
    status: str  # new | changed | retried | unchanged
    nodes: int
    passages: int
    summaries_computed: int
    summaries_reused: int
    model_calls: int
    input_tokens: int
    output_tokens: int
    split_in_parts: int = 0


@dataclass
class IngestPlan:
    """What an ``ingest`` call would do (the JSON of ``overstory ingest --dry-run --json``)."""

    identity: SummarizerIdentity
    documents: list[DocumentPlan] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """The dry run's JSON document."""
        docs = self.documents
        return {
            "dry_run": True,
            "summarizer": {
                "backend": self.identity.backend,
                "model": self.identity.model,
                "prompt_version": self.identity.prompt_version,
            },
            "documents": [asdict(d) for d in docs],
            "errors": self.errors,
            "summaries_computed": sum(d.summaries_computed for d in docs),
            "summaries_reused": sum(d.summaries_reused for d in docs),
            "estimate": {
                "backend": self.identity.backend,
                "model_calls": sum(d.model_calls for d in docs),
                "input_tokens": sum(d.input_tokens for d in docs),
                "output_tokens": sum(d.output_tokens for d in docs),
                "method": ESTIMATE_METHOD,
            },
            "seconds": round(self.seconds, 3),
        }


def plan_document(
    ctx: IngestContext, data: bytes, *, doc_id: str, source: str, filename: str
) -> DocumentPlan:
    """What :func:`indexer.ingest.ingest_document` would do with ``data``; calls no model.

    Raises:
        BadInputError: The file would be refused by the ingest.
    """
    settings = ctx.settings
    if len(data) > settings.max_document_bytes:
        raise TooLargeError(
            f"{source}: {len(data):,} bytes is over the limit of "
            f"{settings.max_document_bytes:,} (setting max_document_bytes)"
        )
    status, stored = served_state(ctx, doc_id=doc_id, revision=hash_bytes(data))
    if status == "unchanged":
        return DocumentPlan(
            doc_id=doc_id,
            source=source,
            status=status,
            nodes=stored.get("nodes", 0),
            passages=stored.get("passages", 0),
            summaries_computed=0,
            summaries_reused=0,
            model_calls=0,
            input_tokens=0,
            output_tokens=0,
        )
    parsed = parse_bytes(data, filename=filename)
    tree = build_tree(parsed, chunk_tokens=settings.chunk_tokens, overlap=settings.chunk_overlap)
    passages = tree.passages()
    for p in passages:
        p.hash = hash_text(p.text or "")
    if ctx.restructure is not None:
        lazy = _LazyVectors(ctx, doc_id=doc_id, passages=passages)
        # The hook's annotation says dict; it only reads (``get``, ``values``).
        ctx.restructure(tree, cast(dict[str, np.ndarray], lazy), doc_id)
    compute_hashes(tree)
    for node in tree.walk():
        node.node_id = hash_parts([doc_id, "plan", str(node.ordinal)])[:20]

    recorder = _PlanningSummarizer(ctx.summarizer.identity, _estimator(settings, ctx))
    planning = replace(
        ctx,
        summarizer=recorder,
        catalog=cast(Catalog, _ReadOnlyCatalog(ctx.catalog)),
        progress=no_progress,
    )
    outcome = _summarize(planning, tree, doc_id=doc_id)
    est = recorder.estimates
    return DocumentPlan(
        doc_id=doc_id,
        source=source,
        status=status,
        nodes=sum(1 for _ in tree.walk()),
        passages=len(passages),
        summaries_computed=outcome.calls,
        summaries_reused=outcome.hits,
        model_calls=sum(e.calls for e in est),
        input_tokens=sum(e.input_tokens for e in est),
        output_tokens=sum(e.output_tokens for e in est),
        split_in_parts=sum(1 for e in est if e.parts > 1),
    )


def _estimator(settings: Settings, ctx: IngestContext) -> TokenEstimator:
    ident = ctx.summarizer.identity
    return TokenEstimator(
        backend=ident.backend,
        words=words_for(settings.summary_tokens),
        summary_tokens=settings.summary_tokens,
        max_new_tokens=settings.summarizer_max_new_tokens,
        context_tokens=settings.summarizer_context_tokens,
    )


class _PlanningSummarizer:
    """Calls no model: records what each request would cost and answers with a placeholder.

    The placeholder names the request's cache key, so two nodes get the same placeholder exactly
    when the real run would compute one summary for both.
    """

    def __init__(self, identity: SummarizerIdentity, estimator: TokenEstimator) -> None:
        self.identity = identity
        self.estimator = estimator
        self.estimates: list[TokenEstimate] = []

    async def summarize(self, requests: Sequence[SummaryRequest]) -> list[SummaryResult]:
        out = []
        for r in requests:
            self.estimates.append(self.estimator.estimate(r))
            out.append(SummaryResult(r.key, PENDING + r.key))
        return out


class _ReadOnlyCatalog:
    """The catalog with its summary cache writes turned into no-ops (reads pass through)."""

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog

    def put_summaries(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Store nothing."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._catalog, name)


class _LazyVectors(Mapping[str, np.ndarray]):
    """Passage vectors by hash, fetched or embedded (in memory, never stored) on first read.

    Embeds in the same order and batches as the real build, so the vectors, and therefore the
    clusters, are the same.
    """

    def __init__(self, ctx: IngestContext, *, doc_id: str, passages: list[TreeNode]) -> None:
        self._ctx = ctx
        self._doc_id = doc_id
        self._texts: dict[str, str] = {}
        for p in passages:
            self._texts.setdefault(p.hash, p.text or "")
        self._vectors: dict[str, np.ndarray] | None = None

    def _load(self) -> dict[str, np.ndarray]:
        if self._vectors is None:
            ids = {h: vector_id(self._doc_id, "p", h) for h in self._texts}
            stored = self._ctx.vectors.get(list(ids.values())) if ids else {}
            out = {h: stored[v] for h, v in ids.items() if v in stored}
            missing = [h for h in self._texts if h not in out]
            for i in range(0, len(missing), _EMBED_CHUNK):
                batch = missing[i : i + _EMBED_CHUNK]
                vecs = self._ctx.embedder().embed([self._texts[h] for h in batch])
                out.update(zip(batch, vecs, strict=True))
            self._vectors = out
        return self._vectors

    def __getitem__(self, key: str) -> np.ndarray:
        return self._load()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)
