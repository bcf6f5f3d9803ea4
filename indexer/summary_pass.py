"""The bottom-up summary pass: which summaries a tree needs, given the cache, one height at a time.

This is the planning step that the ingest and its dry run share. It decides, for every inner
node, its cache key (from the summarizer identity, the node's Merkle hash and its children's
summaries), whether the cache already holds it, which requests to send (one per distinct key),
and what a failure means for the ancestors. What it does not do is read or write anything: the
caller passes ``lookup`` (the cache, read-only) and ``compute`` (the summarizer: the real one
writes what it computes to the cache; the dry run's answers with placeholders and writes
nothing). So the dry run's count of summaries to compute is exact by construction.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from indexer.hashing import hash_bytes, hash_parts
from indexer.progress import ProgressEvent, ProgressFn, no_progress
from indexer.sourced import Anchor, SourcedSentence, loads_anchored
from indexer.store.records import StoredSummary
from indexer.summarizers.base import ChildSummary, SummarizerIdentity, SummaryRequest, cache_key
from indexer.summarizers.outline import LICENCE, back_matter
from indexer.summarizers.support import align_text
from indexer.tree import CLUSTER, DOCUMENT, PASSAGE, TreeNode


@dataclass(frozen=True)
class Written:
    """A summary's text and its sourced sentences (spans relative to the node's start)."""

    text: str
    sentences: list[SourcedSentence] = field(default_factory=list)


Lookup = Callable[[Iterable[str]], Mapping[str, StoredSummary]]
"""Cached summaries by key (absent keys: not cached)."""

Compute = Callable[[list[SummaryRequest]], "Computed"]
"""Summaries for the requests: by key, and the failures."""


@dataclass(frozen=True, kw_only=True)
class Computed:
    """What one batch of summary requests produced."""

    texts: dict[str, Written]
    failures: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class SummaryOutcome:
    """Summaries of one tree: text, sentences and cache key by node id, and what they cost."""

    text: dict[str, str | None] = field(default_factory=dict)
    sentences: dict[str, list[SourcedSentence]] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    calls: int = 0
    hits: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)
    # Nodes whose summary only repeats their single child (see find_repeats): stored, not
    # embedded or searched.
    repeats: set[str] = field(default_factory=set)


def _words(text: str) -> str:
    return " ".join(text.split()).casefold()


def find_repeats(tree: TreeNode, text: Mapping[str, str | None]) -> set[str]:
    """Nodes whose summary only repeats their single child: a verbatim copy of (or excerpt
    from) its one passage or its one sub-section's summary.

    Searchable, such a summary would take a second result slot with the same text as its
    child, so it is kept for browsing and audit but not indexed (the document node excepted:
    it answers "what is this about").
    """
    out: set[str] = set()
    for node in tree.inner_post_order():
        own = text.get(node.node_id)
        if not own or len(node.children) != 1 or node.level == DOCUMENT:
            continue
        child = node.children[0]
        below = child.text if child.level == PASSAGE else text.get(child.node_id)
        if below and _words(own) in _words(below):
            out.add(node.node_id)
    return out


def summarize_tree(
    tree: TreeNode,
    *,
    identity: SummarizerIdentity,
    corrected: Mapping[str, str],
    lookup: Lookup,
    compute: Compute,
    doc_id: str = "",
    progress: ProgressFn = no_progress,
) -> SummaryOutcome:
    """Summaries of every inner node, bottom-up one height at a time, computing only misses.

    Args:
        tree: The document tree, hashed and with node ids.
        identity: The summarizer's identity (part of every key).
        corrected: Expert corrections by node hash; a corrected node's text is what its parent
            reads and what gets embedded.
        lookup: The summary cache (read-only).
        compute: Produces the summaries of the requests not in the cache.
        doc_id: For progress events.
        progress: Receives a ``summarize`` event after each height.
    """
    out = SummaryOutcome()
    layouts = layout_hashes(tree)
    by_height = _by_height(tree)
    total = sum(len(nodes) for nodes in by_height.values())
    done = 0
    # Nodes left without a summary by a failure. Their ancestors are not summarized either (the
    # summary would silently miss that part); the next ingest computes exactly these again.
    failed: set[str] = set()
    for height in sorted(by_height):
        nodes = _attemptable(by_height[height], out, failed)
        for n in nodes:
            child_summaries = [
                out.text.get(c.node_id) or "" for c in n.children if c.level != PASSAGE
            ]
            out.keys[n.node_id] = cache_key(
                identity,
                level=n.level,
                node_hash=n.hash,
                layout=layouts[n.node_id],
                child_summaries=child_summaries,
            )
        cached = lookup(out.keys[n.node_id] for n in nodes)
        todo = _requests(nodes, cached, out)
        computed = compute(list(todo.values())) if todo else Computed(texts={})
        out.calls += len(computed.texts)
        out.failures.extend(computed.failures)
        done += len(by_height[height])
        progress(ProgressEvent(doc_id, "summarize", done, total, out.calls, out.hits))
        _record(nodes, cached, computed, out, failed, corrected)
    out.repeats = find_repeats(tree, out.text)
    return out


def anchors_of(node: TreeNode) -> list[Anchor]:
    """What the spans of ``node``'s summary may point into, relative to its start: the headings
    of it and the nodes below it, and the passages below it, in tree order."""
    out: list[Anchor] = []
    for n in node.walk():
        if n.is_passage:
            out.append((n.char_start - node.char_start, len(n.text or "")))
        elif (heading := n.heading_span) is not None:
            out.append((heading[0] - node.char_start, heading[1] - heading[0]))
    return out


def layout_hashes(tree: TreeNode) -> dict[str, str]:
    """Per inner node, a hash of the exact text of its anchors (:func:`anchors_of`), which is
    what its summary's anchored spans point into; computed bottom-up like a Merkle tree."""
    out: dict[str, str] = {}

    def visit(node: TreeNode) -> str:
        if node.is_passage:
            # What joins it to the passage before decides whether a summarizer reads them as
            # one text.
            return hash_bytes(f"{node.joined!r}\0{node.text or ''}".encode())
        heading = node.heading_span
        parts = [node.title or "", str(heading[1] - heading[0]) if heading else ""]
        parts += [visit(c) for c in node.children]
        out[node.node_id] = hash_parts(["layout", *parts])
        return out[node.node_id]

    visit(tree)
    return out


def source_of(node: TreeNode) -> list[tuple[int, str]]:
    """The passages below ``node`` as ``(start relative to the node, text)``."""
    return [(p.char_start - node.char_start, p.text or "") for p in node.passages()]


def _by_height(tree: TreeNode) -> dict[int, list[TreeNode]]:
    height: dict[str, int] = {}
    by_height: dict[int, list[TreeNode]] = defaultdict(list)
    for node in tree.inner_post_order():
        height[node.node_id] = 1 + max(
            (height[c.node_id] for c in node.children if c.level != PASSAGE), default=0
        )
        by_height[height[node.node_id]].append(node)
    return by_height


def _attemptable(
    nodes: Sequence[TreeNode], out: SummaryOutcome, failed: set[str]
) -> list[TreeNode]:
    """The nodes of one height to summarize; the others get no summary (and why)."""
    keep = []
    for n in nodes:
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
            keep.append(n)
    return keep


def _requests(
    nodes: Sequence[TreeNode], cached: Mapping[str, StoredSummary], out: SummaryOutcome
) -> dict[str, SummaryRequest]:
    """One request per distinct key that the cache does not hold; the rest count as hits."""
    todo: dict[str, SummaryRequest] = {}
    for n in nodes:
        key = out.keys[n.node_id]
        if key in cached:
            out.text[n.node_id] = cached[key].text
            out.sentences[n.node_id] = loads_anchored(cached[key].sentences_json, anchors_of(n))
            out.hits += 1
        elif key in todo:
            out.hits += 1
        else:
            todo[key] = _request(n, key, out)
    return todo


def _relative(span: tuple[int, int] | None, origin: int) -> tuple[int, int] | None:
    return None if span is None else (span[0] - origin, span[1] - origin)


def _request(node: TreeNode, key: str, out: SummaryOutcome) -> SummaryRequest:
    own = [c for c in node.children if c.level == PASSAGE]
    children = []
    for c in node.children:
        if c.level == PASSAGE:
            continue
        delta = c.char_start - node.char_start
        children.append(
            ChildSummary(
                # A cluster's title is a keyword label, not a heading a summary may name.
                title="" if c.level == CLUSTER else c.title or "",
                text=out.text.get(c.node_id) or "",
                sentences=[s.shifted(delta) for s in out.sentences.get(c.node_id, [])],
                heading=_relative(c.heading_span, node.char_start),
                passages=len(c.passages()),
                children=[g.title or "" for g in c.children if g.level not in (PASSAGE, CLUSTER)],
            )
        )
    return SummaryRequest(
        key=key,
        level=node.level,
        title=node.title,
        heading_path=list(node.heading_path),
        passages=[c.text or "" for c in own],
        children=children,
        passage_starts=[c.char_start - node.char_start for c in own],
        passage_joins=[c.joined for c in own],
        heading=_relative(node.heading_span, node.char_start),
        anchors=anchors_of(node),
        below=_runs(node) if _reads_below(node) else [],
    )


def _reads_below(node: TreeNode) -> bool:
    """Whether the summarizer reads the text below ``node``, not only its own: its parts are
    clusters (no headings say what it holds), or it is a licence (which says what it is in its
    first part's text)."""
    if any(c.level == CLUSTER for c in node.children):
        return True
    return back_matter(node.title or "", list(node.heading_path)[:-1]) == LICENCE


def _runs(node: TreeNode) -> list[tuple[int, str]]:
    """The passages below ``node`` merged into runs of text, starts relative to the node."""
    runs: list[tuple[int, str]] = []
    for p in sorted(node.passages(), key=lambda p: p.char_start):
        start, text = p.char_start - node.char_start, p.text or ""
        if runs and start <= runs[-1][0] + len(runs[-1][1]):
            run_start, run_text = runs[-1]
            runs[-1] = (run_start, run_text + text[run_start + len(run_text) - start :])
        else:
            runs.append((start, text))
    return runs


def _record(
    nodes: Sequence[TreeNode],
    cached: Mapping[str, StoredSummary],
    computed: Computed,
    out: SummaryOutcome,
    failed: set[str],
    corrected: Mapping[str, str],
) -> None:
    for n in nodes:
        key = out.keys[n.node_id]
        if n.node_id not in out.text:
            written = computed.texts.get(key)
            out.text[n.node_id] = written.text if written else None
            if written is not None:
                out.sentences[n.node_id] = written.sentences
        if key not in computed.texts and key not in cached:
            failed.add(n.node_id)
            for f in out.failures:
                if f["key"] == key:
                    f.setdefault("level", n.level)
                    f.setdefault("heading_path", list(n.heading_path))
        elif n.hash in corrected:
            # An expert's correction stands while the source below is unchanged; it is what
            # the parent reads (so the parent is rebuilt from it) and what gets embedded. Its
            # sentences point at the source text they restate, found by alignment.
            out.text[n.node_id] = corrected[n.hash]
            out.sentences[n.node_id] = align_text(corrected[n.hash], source_of(n))
