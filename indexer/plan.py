"""What an ingest would cost, without doing it: ``overstory ingest --dry-run``.

The plan runs the build's own summary pass (:func:`indexer.summary_pass.summarize_tree`) on the
real tree and the real cache, with a ``compute`` that calls no model: it records a token
estimate and answers with a placeholder that stands for "the summary this run would compute".
Outside estimated cluster levels the count of summaries to compute is exact by construction:
the same tree, the same cache keys, the same skipping of nodes without passages and of
duplicate keys. A parent of a node to compute is itself computed (its key includes the new
child summary), which the placeholder reproduces.

Nothing is written and nothing is embedded: no build, no summary, no vector. Where the build
would add cluster levels (headingless or flat parts), they are computed from the stored passage
vectors when every one is stored (a re-ingest: exact), else their number and depth are estimated
from the passage counts and the clustering settings (:mod:`indexer.clustering.estimate`) and the
document's plan says ``clusters_estimated``: a dry run then costs a parse and a tree walk, a
small fraction of the build, instead of embedding every passage.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from indexer.clustering.estimate import estimate_cluster_levels
from indexer.hashing import hash_parts, hash_text
from indexer.ingest import (
    IngestContext,
    Source,
    file_source,
    passage_key,
    served_state,
    vector_id,
)
from indexer.reviews import corrections
from indexer.settings import Settings
from indexer.summarizers.base import SummarizerIdentity, SummaryRequest
from indexer.summarizers.estimate import PENDING, TokenEstimate, TokenEstimator
from indexer.summarizers.prompts import words_for
from indexer.summary_pass import Computed, Written, summarize_tree
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
    # True when cluster levels were estimated from passage counts (vectors not stored yet):
    # summaries_computed is then an estimate too.
    clusters_estimated: bool = False


@dataclass
class IngestPlan:
    """What an ``ingest`` call would do (the JSON of ``overstory ingest --dry-run --json``)."""

    identity: SummarizerIdentity
    documents: list[DocumentPlan] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)  # doc_id, source, reason
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
            "skipped": self.skipped,
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
    src = file_source(ctx.settings, data, doc_id=doc_id, source=source, filename=filename)
    return plan_source(ctx, src)


def plan_source(ctx: IngestContext, src: Source) -> DocumentPlan:
    """What :func:`indexer.ingest.ingest_source` would do with ``src``; calls no model.

    Raises:
        BadInputError: The document would be refused by the ingest.
    """
    doc_id, source = src.doc_id, src.source
    status, stored = served_state(ctx, doc_id=doc_id, revision=src.revision)
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
    tree, estimated = _planned_tree(ctx, src)
    recorder = _Recorder(_estimator(ctx.settings, ctx.summarizer.identity))
    outcome = summarize_tree(
        tree,
        identity=ctx.summarizer.identity,
        corrected=corrections(ctx.catalog, doc_id),
        lookup=ctx.catalog.summaries,
        compute=recorder,
    )
    est = recorder.estimates
    return DocumentPlan(
        doc_id=doc_id,
        source=source,
        status=status,
        nodes=sum(1 for _ in tree.walk()),
        passages=len(tree.passages()),
        summaries_computed=outcome.calls,
        summaries_reused=outcome.hits,
        model_calls=sum(e.calls for e in est),
        input_tokens=sum(e.input_tokens for e in est),
        output_tokens=sum(e.output_tokens for e in est),
        split_in_parts=sum(1 for e in est if e.parts > 1),
        clusters_estimated=estimated,
    )


def _planned_tree(ctx: IngestContext, src: Source) -> tuple[TreeNode, bool]:
    """The tree the ingest would build: parsed, chunked, restructured and hashed, and whether
    its cluster levels are estimated (some passage vectors are not stored yet)."""
    settings, doc_id = ctx.settings, src.doc_id
    parsed = src.parse()
    tree = build_tree(
        parsed,
        chunk_tokens=settings.chunk_tokens,
        overlap=settings.chunk_overlap,
        max_chars=settings.chunk_max_chars,
    )
    for p in tree.passages():
        p.hash = hash_text(p.text or "")
    estimated = False
    too_flat = any(
        sum(1 for c in n.children if c.is_passage) > max(2, settings.cluster_threshold)
        for n in tree.walk()
    )
    if ctx.restructure is not None and too_flat:
        passages = tree.passages()
        headings = settings.embed_headings
        ids = {p.hash: vector_id(doc_id, "p", passage_key(p, tree, headings)) for p in passages}
        stored = ctx.vectors.get(sorted(set(ids.values()))) if ids else {}
        if all(v in stored for v in ids.values()):
            ctx.restructure(tree, {h: stored[v] for h, v in ids.items()}, doc_id)
        else:
            estimated = True
            estimate_cluster_levels(
                tree, threshold=settings.cluster_threshold, branching=settings.cluster_branching
            )
    compute_hashes(tree)
    for node in tree.walk():
        node.node_id = hash_parts([doc_id, "plan", str(node.ordinal)])[:20]
    return tree, estimated


def _estimator(settings: Settings, identity: SummarizerIdentity) -> TokenEstimator:
    return TokenEstimator(
        backend=identity.backend,
        words=words_for(settings.summary_tokens),
        summary_tokens=settings.summary_tokens,
        max_new_tokens=settings.summarizer_max_new_tokens,
        context_tokens=settings.summarizer_context_tokens,
    )


class _Recorder:
    """A ``compute`` that calls no model: records what each request would cost and answers
    with a placeholder.

    The placeholder names the request's cache key, so two nodes get the same placeholder exactly
    when the real run would compute one summary for both.
    """

    def __init__(self, estimator: TokenEstimator) -> None:
        self.estimator = estimator
        self.estimates: list[TokenEstimate] = []

    def __call__(self, requests: list[SummaryRequest]) -> Computed:
        self.estimates.extend(self.estimator.estimate(r) for r in requests)
        return Computed(texts={r.key: Written(PENDING + r.key) for r in requests})
