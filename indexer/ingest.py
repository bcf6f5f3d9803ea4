"""Ingest one document: parse → tree → embed passages → hash → summarize (cache) → store.

The build is resumable: summaries are committed to the cache and vectors to the vector store as
they are computed, and a document's nodes are published in one transaction at the very end, so a
crash leaves the previous revision served and a rerun reuses everything already paid for.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from indexer.embedding.base import Embedder
from indexer.hashing import hash_bytes, hash_parts, hash_text
from indexer.parsers import parse_bytes
from indexer.progress import ProgressEvent, ProgressFn
from indexer.reports import DocumentReport
from indexer.reviews import corrections
from indexer.settings import Settings
from indexer.store.catalog import Catalog
from indexer.store.rows import node_rows
from indexer.store.vectors.base import VectorStore
from indexer.summarizers.base import Summarizer, SummaryRequest, cache_key
from indexer.tree import PASSAGE, TreeNode, build_tree, compute_hashes, summary_depth

_EMBED_CHUNK = 256
_SUMMARY_BATCH = 64

# (tree, passage vectors by hash, doc_id): adds cluster levels in place, before hashing.
Restructure = Callable[[TreeNode, dict[str, np.ndarray], str], None]


def vector_id(doc_id: str, kind: str, content_hash: str) -> str:
    """Vector ids are content addressed inside a document: unchanged text keeps its vector."""
    return f"{hash_parts([doc_id])[:16]}:{kind}:{content_hash}"


@dataclass
class IngestContext:
    """The collaborators of one ingest."""

    settings: Settings
    catalog: Catalog
    vectors: VectorStore
    embedder: Callable[[], Embedder]
    summarizer: Summarizer
    progress: ProgressFn
    restructure: Restructure | None = None


def ingest_document(
    ctx: IngestContext, data: bytes, *, doc_id: str, source: str, filename: str
) -> DocumentReport:
    """Ingest (or skip) one document and return its report.

    Raises:
        BadInputError: The file is empty, binary, corrupt, too large or of an unknown type.
        BackendError: The vector store failed.
    """
    from indexer.errors import TooLargeError

    if len(data) > ctx.settings.max_document_bytes:
        raise TooLargeError(
            f"{source}: {len(data):,} bytes is over the limit of "
            f"{ctx.settings.max_document_bytes:,} (setting max_document_bytes)"
        )
    revision = hash_bytes(data)
    ident = ctx.summarizer.identity.label
    embedder_name = _embedder_name(ctx.settings)
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
    parsed = parse_bytes(data, filename=filename)
    tree = build_tree(
        parsed, chunk_tokens=ctx.settings.chunk_tokens, overlap=ctx.settings.chunk_overlap
    )
    build_id = ctx.catalog.start_build(
        doc_id=doc_id,
        source=source,
        revision=revision,
        fmt=parsed.format,
        summarizer=ident,
        embedder=embedder_name,
        text=parsed.text,
    )
    try:
        report = _build(ctx, tree, build_id=build_id, doc_id=doc_id, source=source)
    except BaseException:
        ctx.catalog.fail_build(build_id)
        raise
    report.revision = revision
    report.status = status
    return report


def served_state(ctx: IngestContext, *, doc_id: str, revision: str) -> tuple[str, dict[str, Any]]:
    """What an ingest of ``revision`` would do, and the served build's stored report.

    ``new`` (not served), ``changed`` (other revision, summarizer or embedder), ``retried`` (the
    same, but the served build has nodes whose summary failed: only those are computed again),
    or ``unchanged`` (nothing to do).
    """
    current = ctx.catalog.document(doc_id)
    if current is None or current["current_build"] is None:
        return "new", {}
    stored: dict[str, Any] = json.loads(current["report"] or "{}")
    if (
        current["revision"] != revision
        or current["summarizer"] != ctx.summarizer.identity.label
        or current["embedder"] != _embedder_name(ctx.settings)
        or stored.get("corrections", "") != corrections_fingerprint(ctx.catalog, doc_id)
    ):
        return "changed", stored
    return ("retried" if stored.get("summary_failures") else "unchanged"), stored


def corrections_fingerprint(catalog: Catalog, doc_id: str) -> str:
    """A hash of a document's expert corrections (empty when there are none)."""
    found = corrections(catalog, doc_id)
    return hash_parts(sorted(f"{h}\n{t}" for h, t in found.items())) if found else ""


def _embedder_name(settings: Settings) -> str:
    return "hashing-384" if settings.embedder == "hashing" else "all-MiniLM-L6-v2"


def _build(
    ctx: IngestContext, tree: TreeNode, *, build_id: int, doc_id: str, source: str
) -> DocumentReport:
    passages = tree.passages()
    for p in passages:
        p.hash = hash_text(p.text or "")
    embedded = 0
    vec_by_hash, n = _embed_missing(
        ctx,
        doc_id=doc_id,
        kind="p",
        items=[(p.hash, p.text or "") for p in passages],
        stage="embed",
    )
    embedded += n
    if ctx.restructure is not None:
        ctx.restructure(tree, vec_by_hash, doc_id)
    compute_hashes(tree)
    for node in tree.walk():
        node.node_id = hash_parts([doc_id, str(build_id), str(node.ordinal)])[:20]

    outcome = _summarize(ctx, tree, doc_id=doc_id)
    summary_of, calls, hits, failures = outcome.text, outcome.calls, outcome.hits, outcome.failures

    summary_items = [
        (hash_text(f"{node.level}\n{text}"), text)
        for node in tree.inner_post_order()
        if (text := summary_of.get(node.node_id))
    ]
    _, n = _embed_missing(ctx, doc_id=doc_id, kind="s", items=summary_items, stage="embed")
    embedded += n

    ctx.progress(ProgressEvent(doc_id, "store", 0, 1, calls, hits))
    rows = node_rows(
        tree,
        build_id=build_id,
        doc_id=doc_id,
        summary_keys={nid: k for nid, k in outcome.keys.items() if summary_of.get(nid)},
        passage_vector=lambda p: vector_id(doc_id, "p", p.hash),
        summary_vector=lambda node: (
            vector_id(doc_id, "s", hash_text(f"{node.level}\n{summary_of[node.node_id]}"))
            if summary_of.get(node.node_id)
            else None
        ),
    )
    n_nodes = sum(1 for _ in tree.walk())
    n_summaries = sum(1 for v in summary_of.values() if v)
    report = DocumentReport(
        doc_id=doc_id,
        source=source,
        revision="",
        status="",
        nodes=n_nodes,
        passages=len(passages),
        summaries=n_summaries,
        depth=summary_depth(tree),
        summarizer_calls=calls,
        cache_hits=hits,
        embedded=embedded,
        summary_failures=failures,
    )
    stored_report = {
        "nodes": n_nodes,
        "passages": len(passages),
        "summaries": n_summaries,
        "depth": report.depth,
        # Nonzero makes the next ingest of the same revision retry the nodes left without one.
        "summary_failures": len(failures),
        # A new expert correction makes the next ingest rebuild the corrected node's ancestors.
        "corrections": corrections_fingerprint(ctx.catalog, doc_id),
    }
    ctx.catalog.finish_build(
        build_id,
        doc_id=doc_id,
        source=source,
        root_node=tree.node_id,
        nodes=rows,
        report=stored_report,
    )
    _collect_garbage(ctx, doc_id=doc_id, build_id=build_id)
    ctx.progress(ProgressEvent(doc_id, "store", 1, 1, calls, hits))
    return report


def _embed_missing(
    ctx: IngestContext, *, doc_id: str, kind: str, items: list[tuple[str, str]], stage: str
) -> tuple[dict[str, np.ndarray], int]:
    """Vectors for ``(content_hash, text)`` items, embedding only those not stored yet."""
    unique: dict[str, str] = {}
    for h, text in items:
        unique.setdefault(h, text)
    ids = {h: vector_id(doc_id, kind, h) for h in unique}
    stored = ctx.vectors.get(list(ids.values())) if ids else {}
    out = {h: stored[vid] for h, vid in ids.items() if vid in stored}
    missing = [h for h in unique if h not in out]
    total = len(missing)
    ctx.progress(ProgressEvent(doc_id, stage, 0, total))
    for i in range(0, total, _EMBED_CHUNK):
        batch = missing[i : i + _EMBED_CHUNK]
        vecs = ctx.embedder().embed([unique[h] for h in batch])
        ctx.vectors.upsert(
            [ids[h] for h in batch], vecs, doc_ids=[doc_id] * len(batch), kinds=[kind] * len(batch)
        )
        for h, v in zip(batch, vecs, strict=True):
            out[h] = v
        ctx.progress(ProgressEvent(doc_id, stage, min(i + len(batch), total), total))
    return out, total


def _heights(tree: TreeNode) -> dict[str, int]:
    height: dict[str, int] = {}
    for node in tree.inner_post_order():
        height[node.node_id] = 1 + max(
            (height[c.node_id] for c in node.children if c.level != PASSAGE), default=0
        )
    return height


@dataclass
class SummaryOutcome:
    """Summaries of one tree: text and cache key by node id, and what they cost."""

    text: dict[str, str | None]
    keys: dict[str, str]
    calls: int
    hits: int
    failures: list[dict[str, Any]]


def _summarize(ctx: IngestContext, tree: TreeNode, *, doc_id: str) -> SummaryOutcome:
    """Summaries of every inner node, bottom-up one height at a time, computing only misses."""
    ident = ctx.summarizer.identity
    out = SummaryOutcome(text={}, keys={}, calls=0, hits=0, failures=[])
    corrected = corrections(ctx.catalog, doc_id)
    height = _heights(tree)
    by_height: dict[int, list[TreeNode]] = defaultdict(list)
    for node in tree.inner_post_order():
        by_height[height[node.node_id]].append(node)
    inner_total = len(height)
    done = 0
    # Nodes left without a summary by a failure. Their ancestors are not summarized either (the
    # summary would silently miss that part); the next ingest computes exactly these again.
    failed: set[str] = set()
    for h in sorted(by_height):
        level_nodes = []
        for n in by_height[h]:
            if not n.passages():
                out.text[n.node_id] = None
            elif any(c.node_id in failed for c in n.children):
                out.text[n.node_id] = None
                failed.add(n.node_id)
                out.failures.append(
                    {
                        "key": None,
                        "level": n.level,
                        "heading_path": list(n.heading_path),
                        "error": "not attempted: a summary below it failed",
                    }
                )
            else:
                level_nodes.append(n)
        for n in level_nodes:
            child_summaries = [
                out.text.get(c.node_id) or "" for c in n.children if c.level != PASSAGE
            ]
            out.keys[n.node_id] = cache_key(
                ident, level=n.level, node_hash=n.hash, child_summaries=child_summaries
            )
        cached = ctx.catalog.summaries(out.keys[n.node_id] for n in level_nodes)
        todo: dict[str, SummaryRequest] = {}
        for n in level_nodes:
            key = out.keys[n.node_id]
            if key in cached:
                out.text[n.node_id] = cached[key].text
                out.hits += 1
            elif key in todo:
                out.hits += 1
            else:
                todo[key] = _request(n, key, out.text)
        results = _run_summarizer(ctx, list(todo.values()), out)
        done += len(by_height[h])
        ctx.progress(ProgressEvent(doc_id, "summarize", done, inner_total, out.calls, out.hits))
        for n in level_nodes:
            key = out.keys[n.node_id]
            if n.node_id not in out.text:
                out.text[n.node_id] = results.get(key)
            if key not in results and key not in cached:
                failed.add(n.node_id)
                for f in out.failures:
                    if f["key"] == key:
                        f.setdefault("level", n.level)
                        f.setdefault("heading_path", list(n.heading_path))
            elif n.hash in corrected:
                # An expert's correction stands while the source below is unchanged; it is what
                # the parent reads (so the parent is rebuilt from it) and what gets embedded.
                out.text[n.node_id] = corrected[n.hash]
    return out


def _request(node: TreeNode, key: str, text: dict[str, str | None]) -> SummaryRequest:
    return SummaryRequest(
        key=key,
        level=node.level,
        title=node.title,
        heading_path=list(node.heading_path),
        passages=[c.text or "" for c in node.children if c.level == PASSAGE],
        children=[
            (c.title or "", text.get(c.node_id) or "") for c in node.children if c.level != PASSAGE
        ],
    )


def _run_summarizer(
    ctx: IngestContext, pending: list[SummaryRequest], out: SummaryOutcome
) -> dict[str, str]:
    """Compute summaries in batches, committing each batch to the cache as it completes."""
    ident = ctx.summarizer.identity
    results: dict[str, str] = {}
    for i in range(0, len(pending), _SUMMARY_BATCH):
        batch = pending[i : i + _SUMMARY_BATCH]
        answers = asyncio.run(ctx.summarizer.summarize(batch))
        good = [r for r in answers if r.text is not None and r.error is None]
        ctx.catalog.put_summaries(
            (
                r.key,
                r.text,
                ident.backend,
                ident.model,
                ident.prompt_version,
                r.input_tokens,
                r.output_tokens,
                r.parts,
            )
            for r in good
        )
        out.calls += len(good)
        for r in good:
            results[r.key] = str(r.text)
        out.failures.extend(
            {"key": r.key, "error": r.error or "no text"} for r in answers if r not in good
        )
    return results


def _collect_garbage(ctx: IngestContext, *, doc_id: str, build_id: int) -> None:
    """Remove this document's vectors that its served build no longer references."""
    keep = ctx.catalog.vector_ids_of_build(build_id)
    stale = sorted(ctx.vectors.ids_of_document(doc_id) - keep)
    if stale:
        ctx.vectors.delete(stale)
