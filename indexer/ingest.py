"""Ingest one document: parse → tree → embed passages → hash → summarize (cache) → store.

The build is resumable: summaries are committed to the cache and vectors to the vector store as
they are computed, and a document's nodes are published in one transaction at the very end, so a
crash leaves the previous revision served and a rerun reuses everything already paid for.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from indexer.budget import check_budget
from indexer.embedding.base import Embedder
from indexer.errors import TooLargeError
from indexer.hashing import hash_bytes, hash_parts, hash_text
from indexer.parsers.base import ParsedDocument
from indexer.progress import ProgressEvent, ProgressFn
from indexer.reports import DocumentReport
from indexer.reuse import Reuse, reader_fingerprint
from indexer.reviews import corrections
from indexer.settings import Settings
from indexer.sourced import Pages, dumps_resolved, resolve
from indexer.store.catalog import Catalog
from indexer.store.rows import node_rows
from indexer.store.vectors.base import VectorStore
from indexer.summarizers.base import Summarizer, SummaryRequest
from indexer.summary_pass import Computed, SummaryOutcome, Written, summarize_tree
from indexer.timings import StageTimes
from indexer.tree import TreeNode, build_tree, compute_hashes, summary_depth
from indexer.vector_text import embedding_key, embedding_text, within

EMBED_CHUNK = 256
log = logging.getLogger(__name__)
_SUMMARY_BATCH = 64

# (tree, passage vectors by hash, doc_id): adds cluster levels in place, before hashing.
Restructure = Callable[[TreeNode, Mapping[str, np.ndarray], str], None]


def vector_id(doc_id: str, kind: str, content_hash: str) -> str:
    """Vector ids are content addressed inside a document: unchanged text keeps its vector."""
    return f"{hash_parts([doc_id])[:16]}:{kind}:{content_hash}"


@dataclass
class IngestContext:
    """The collaborators of one ingest."""

    settings: Settings
    catalog: Catalog
    vectors: VectorStore
    embedder: Embedder  # loads its model on first use
    summarizer: Summarizer
    progress: ProgressFn
    restructure: Restructure | None = None
    times: StageTimes = field(default_factory=StageTimes)


@dataclass(frozen=True)
class Source:
    """One document to ingest: a file, or a manual made of several (``indexer.manual``).

    Attributes:
        doc_id: The document's identity.
        source: Where it came from, as reported.
        revision: The content hash of everything it is made of.
        parse: Parses it (called only when the revision is not served already).
    """

    doc_id: str
    source: str
    revision: str
    parse: Callable[[], ParsedDocument]


def file_source(
    settings: Settings, data: bytes, *, doc_id: str, source: str, filename: str
) -> Source:
    """The :class:`Source` of one file's bytes; TooLargeError over ``max_document_bytes``."""
    check_size(settings, data, source=source)
    return Source(doc_id, source, hash_bytes(data), lambda: parse_reusing(settings, data, filename))


def parse_reusing(settings: Settings, data: bytes, filename: str) -> ParsedDocument:
    """One file's parse, reusing what the store's ingests derived before (:mod:`indexer.reuse`):
    the same bytes' parse, a PDF's unchanged pages."""
    reuse = Reuse.for_store(settings.store)
    try:
        return reuse.document(data, filename)
    finally:
        reuse.cache.close()


def ingest_document(
    ctx: IngestContext, data: bytes, *, doc_id: str, source: str, filename: str
) -> DocumentReport:
    """Ingest (or skip) one file's bytes and return its report (see :func:`ingest_source`)."""
    src = file_source(ctx.settings, data, doc_id=doc_id, source=source, filename=filename)
    return ingest_source(ctx, src)


def ingest_source(ctx: IngestContext, src: Source) -> DocumentReport:
    """Ingest (or skip) one document and return its report.

    Raises:
        BadInputError: The file is empty, binary, corrupt, too large or of an unknown type.
        BackendError: The vector store failed.
    """
    doc_id, source, revision = src.doc_id, src.source, src.revision
    status, stored = served_state(ctx, doc_id=doc_id, revision=revision)
    if status == "unchanged":
        return DocumentReport(
            doc_id=doc_id,
            source=source,
            revision=revision,
            status="unchanged",
            nodes=stored.get("nodes", 0),
            passages=stored.get("passages", 0),
            summaries=stored.get("summaries", 0),
            depth=stored.get("depth", 0),
        )

    ctx.progress(ProgressEvent(doc_id, "parse", 0, 1))
    with ctx.times.timed("parse"):
        parsed = src.parse()
    ctx.progress(ProgressEvent(doc_id, "parse", 1, 1))
    cost = check_budget(ctx.settings, parsed, source=source)
    log.info(
        "%s: about %d tokens in %d passages to embed, %d summaries to compute",
        doc_id,
        cost.tokens,
        cost.passages,
        cost.summaries,
    )
    with ctx.times.timed("chunk"):
        tree = _chunked(ctx, parsed)
    with ctx.times.timed("store"):
        build_id = _start_build(ctx, src, parsed)
    try:
        report = _build(
            ctx, tree, build_id=build_id, doc_id=doc_id, source=source, pages=parsed.pages_for
        )
    except BaseException:
        ctx.catalog.fail_build(build_id)
        raise
    report.revision = revision
    report.status = status
    return report


def _chunked(ctx: IngestContext, parsed: ParsedDocument) -> TreeNode:
    """The document's tree; a section whose text a build of this store chunked before gets the
    same passages back without being chunked again (:mod:`indexer.reuse`)."""
    reuse = Reuse.for_store(ctx.settings.store)
    try:
        return build_tree(
            parsed,
            chunk_tokens=ctx.settings.chunk_tokens,
            overlap=ctx.settings.chunk_overlap,
            max_chars=ctx.settings.chunk_max_chars,
            spans=reuse.spans,
        )
    finally:
        reuse.cache.close()


def _start_build(ctx: IngestContext, src: Source, parsed: ParsedDocument) -> int:
    return ctx.catalog.start_build(
        doc_id=src.doc_id,
        source=src.source,
        revision=src.revision,
        fmt=parsed.format,
        summarizer=ctx.summarizer.identity.label,
        embedder=ctx.embedder.name,
        text=parsed.text,
    )


def check_size(settings: Settings, data: bytes, *, source: str) -> None:
    """TooLargeError when a file is over ``max_document_bytes``."""
    if len(data) > settings.max_document_bytes:
        raise TooLargeError(
            f"{source}: {len(data):,} bytes is over the limit of "
            f"{settings.max_document_bytes:,} (setting max_document_bytes)"
        )


def read_file(settings: Settings, path: Path, *, source: str) -> bytes:
    """A file's bytes; TooLargeError, without reading it, when it is over ``max_document_bytes``."""
    size = path.stat().st_size
    if size > settings.max_document_bytes:
        raise TooLargeError(
            f"{source}: {size:,} bytes is over the limit of "
            f"{settings.max_document_bytes:,} (setting max_document_bytes)"
        )
    return path.read_bytes()


def served_state(ctx: IngestContext, *, doc_id: str, revision: str) -> tuple[str, dict[str, Any]]:
    """What an ingest of ``revision`` would do, and the served build's stored report.

    ``new`` (not served), ``changed`` (other revision, reader, summarizer or embedder),
    ``retried`` (the same, but the served build has nodes whose summary failed: only those are
    computed again), or ``unchanged`` (nothing to do).
    """
    current = ctx.catalog.document(doc_id)
    if current is None or current["current_build"] is None:
        return "new", {}
    stored: dict[str, Any] = json.loads(current["report"] or "{}")
    if (
        current["revision"] != revision
        or current["summarizer"] != ctx.summarizer.identity.label
        or current["embedder"] != ctx.embedder.name
        or stored.get("reader") != reader_fingerprint()
        or stored.get("corrections", "") != corrections_fingerprint(ctx.catalog, doc_id)
    ):
        return "changed", stored
    return ("retried" if stored.get("summary_failures") else "unchanged"), stored


def corrections_fingerprint(catalog: Catalog, doc_id: str) -> str:
    """A hash of a document's expert corrections (empty when there are none)."""
    found = corrections(catalog, doc_id)
    return hash_parts(sorted(f"{h}\n{t}" for h, t in found.items())) if found else ""


def _build(
    ctx: IngestContext,
    tree: TreeNode,
    *,
    build_id: int,
    doc_id: str,
    source: str,
    pages: Pages | None = None,
) -> DocumentReport:
    vec_by_hash, embedded = _embed_passages(ctx, tree, doc_id=doc_id)
    headings = ctx.settings.embed_headings
    if ctx.restructure is not None:
        with ctx.times.timed("cluster"):
            ctx.restructure(tree, vec_by_hash, doc_id)
    compute_hashes(tree)
    for node in tree.walk():
        node.node_id = hash_parts([doc_id, str(build_id), str(node.ordinal)])[:20]

    with ctx.times.timed("summarize"):
        outcome = summarize_tree(
            tree,
            identity=ctx.summarizer.identity,
            corrected=corrections(ctx.catalog, doc_id),
            lookup=ctx.catalog.summaries,
            compute=lambda requests: _run_summarizer(ctx, requests),
            doc_id=doc_id,
            progress=ctx.progress,
        )
    summary_of = outcome.text
    # A summary that only repeats its single child is stored (browsed, audited) but not
    # embedded: as a retrieval candidate it would fill a second slot with the same text.
    summary_items = [
        (
            summary_hash(node, text, headings, tree),
            embedding_text(_within(node, tree), text, headings),
        )
        for node in tree.inner_post_order()
        if (text := summary_of.get(node.node_id)) and node.node_id not in outcome.repeats
    ]
    _, n = _embed_missing(ctx, doc_id=doc_id, kind="s", items=summary_items)
    embedded += n
    ctx.progress(ProgressEvent(doc_id, "store", 0, 1, outcome.calls, outcome.hits))
    with ctx.times.timed("store"):
        report = _publish(
            ctx, tree, outcome, build_id=build_id, doc_id=doc_id, source=source, pages=pages
        )
        report.embedded = embedded
        _collect_garbage(ctx, doc_id=doc_id, build_id=build_id)
    ctx.progress(ProgressEvent(doc_id, "store", 1, 1, outcome.calls, outcome.hits))
    return report


def _embed_passages(
    ctx: IngestContext, tree: TreeNode, *, doc_id: str
) -> tuple[dict[str, np.ndarray], int]:
    """The vectors of the tree's passages by text hash (each set as ``p.hash``), and how many
    were encoded; each passage is addressed by what it is embedded from (``p.vector_key``)."""
    passages = tree.passages()
    headings = ctx.settings.embed_headings
    for p in passages:
        p.hash = hash_text(p.text or "")
        p.vector_key = passage_key(p, tree, headings)
    items = [
        (p.vector_key, embedding_text(_within(p, tree), p.text or "", headings)) for p in passages
    ]
    vec_by_key, embedded = _embed_missing(ctx, doc_id=doc_id, kind="p", items=items)
    return {p.hash: vec_by_key[p.vector_key] for p in passages}, embedded


def passage_key(passage: TreeNode, root: TreeNode, headings: int) -> str:
    """The content hash a passage's vector is addressed by (what it is embedded from)."""
    return embedding_key(passage.level, _within(passage, root), passage.text or "", headings)


def summary_hash(node: TreeNode, text: str, headings: int, root: TreeNode) -> str:
    """The content hash a summary's vector is addressed by (its level, headings and text)."""
    return embedding_key(node.level, _within(node, root), text, headings)


def _within(node: TreeNode, root: TreeNode) -> tuple[str, ...]:
    return within(node.heading_path, root.heading_path)


def _publish(
    ctx: IngestContext,
    tree: TreeNode,
    outcome: SummaryOutcome,
    *,
    build_id: int,
    doc_id: str,
    source: str,
    pages: Pages | None,
) -> DocumentReport:
    """Write the build's nodes and make it the served revision; the document's report."""
    summary_of = outcome.text
    rows = node_rows(
        tree,
        build_id=build_id,
        doc_id=doc_id,
        summary_keys={nid: k for nid, k in outcome.keys.items() if summary_of.get(nid)},
        passage_vector=lambda p: vector_id(doc_id, "p", p.vector_key),
        summary_vector=lambda node: (
            vector_id(doc_id, "s", summary_hash(node, text, ctx.settings.embed_headings, tree))
            if (text := summary_of.get(node.node_id)) and node.node_id not in outcome.repeats
            else None
        ),
        sentences=lambda node: _resolved(outcome, node, pages),
    )
    report = DocumentReport(
        doc_id=doc_id,
        source=source,
        revision="",
        status="",
        nodes=sum(1 for _ in tree.walk()),
        passages=len(tree.passages()),
        summaries=sum(1 for v in summary_of.values() if v),
        depth=summary_depth(tree),
        summarizer_calls=outcome.calls,
        cache_hits=outcome.hits,
        summary_failures=outcome.failures,
    )
    ctx.catalog.finish_build(
        build_id,
        doc_id=doc_id,
        source=source,
        root_node=tree.node_id,
        nodes=rows,
        report=_stored_report(ctx, report, outcome, doc_id=doc_id),
    )
    return report


def _resolved(outcome: SummaryOutcome, node: TreeNode, pages: Pages | None) -> str | None:
    """A node's summary sentences with absolute spans and pages, as ``nodes.sentences``."""
    found = outcome.sentences.get(node.node_id)
    if not found or not outcome.text.get(node.node_id):
        return None
    return dumps_resolved(resolve(found, node_start=node.char_start, pages=pages))


def _stored_report(
    ctx: IngestContext, report: DocumentReport, outcome: SummaryOutcome, *, doc_id: str
) -> dict[str, Any]:
    return {
        "nodes": report.nodes,
        "passages": report.passages,
        "summaries": report.summaries,
        "depth": report.depth,
        # Nonzero makes the next ingest of the same revision retry the nodes left without one.
        "summary_failures": len(outcome.failures),
        # A new expert correction makes the next ingest rebuild the corrected node's ancestors.
        "corrections": corrections_fingerprint(ctx.catalog, doc_id),
        # A new reader (an upgrade) parses the same bytes again: its passages may differ.
        "reader": reader_fingerprint(),
    }


def _embed_missing(
    ctx: IngestContext, *, doc_id: str, kind: str, items: list[tuple[str, str]]
) -> tuple[dict[str, np.ndarray], int]:
    """Vectors for ``(content_hash, text)`` items, embedding only those not stored yet."""
    with ctx.times.timed("embed"):
        return _embed(ctx, doc_id=doc_id, kind=kind, items=items)


def _embed(
    ctx: IngestContext, *, doc_id: str, kind: str, items: list[tuple[str, str]]
) -> tuple[dict[str, np.ndarray], int]:
    unique: dict[str, str] = {}
    for h, text in items:
        unique.setdefault(h, text)
    ids = {h: vector_id(doc_id, kind, h) for h in unique}
    stored = ctx.vectors.get(list(ids.values())) if ids else {}
    out = {h: stored[vid] for h, vid in ids.items() if vid in stored}
    missing = [h for h in unique if h not in out]
    total = len(missing)
    ctx.progress(ProgressEvent(doc_id, "embed", 0, total))
    for i in range(0, total, EMBED_CHUNK):
        batch = missing[i : i + EMBED_CHUNK]
        vecs = ctx.embedder.embed([unique[h] for h in batch])
        ctx.vectors.upsert(
            [ids[h] for h in batch], vecs, doc_ids=[doc_id] * len(batch), kinds=[kind] * len(batch)
        )
        for h, v in zip(batch, vecs, strict=True):
            out[h] = v
        ctx.progress(ProgressEvent(doc_id, "embed", min(i + len(batch), total), total))
    return out, total


def _run_summarizer(ctx: IngestContext, pending: list[SummaryRequest]) -> Computed:
    """Compute summaries in batches, committing each batch to the cache as it completes."""
    ident = ctx.summarizer.identity
    anchors = {r.key: r.anchors for r in pending}
    texts: dict[str, Written] = {}
    failures: list[dict[str, Any]] = []
    for i in range(0, len(pending), _SUMMARY_BATCH):
        batch = pending[i : i + _SUMMARY_BATCH]
        answers = asyncio.run(ctx.summarizer.summarize(batch))
        good = [r for r in answers if r.text is not None and r.error is None]
        ctx.catalog.put_summaries(r.cache_record(ident, anchors[r.key]) for r in good)
        texts.update((r.key, Written(str(r.text), r.sentences)) for r in good)
        failures.extend(
            {"key": r.key, "error": r.error or "no text"} for r in answers if r not in good
        )
    return Computed(texts=texts, failures=failures)


def _collect_garbage(ctx: IngestContext, *, doc_id: str, build_id: int) -> None:
    """Remove this document's vectors that its served build no longer references, and the
    leftovers of any build that never got published (a crash, an abandoned upload)."""
    keep = ctx.catalog.vector_ids_of_build(build_id)
    stale = set(ctx.vectors.ids_of_document(doc_id) - keep)
    stale.update(ctx.catalog.vector_copies.unreferenced())
    if stale:
        ctx.vectors.delete(sorted(stale))
