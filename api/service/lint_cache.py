"""Lint flags of stored summaries, computed once per summary and cached in the catalog.

A summary with sourced sentences (every summary written since sentences carry their spans) is
checked sentence by sentence against exactly the source text each sentence cites
(:func:`indexer.lint.sourced.lint_sentences`); an expert's correction is aligned with the source
below its node first, so that it too is checked against the source, never against other
summaries. A summary without sentences (written before) is checked as before: against the
headings, the node's own passages and its children's summaries. Flags are computed when a
document is published (:class:`LintWarmup`, a publish hook) or else when the audit queue first
needs them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import JsonValue

from api.service.audit_models import FlagPublic
from api.service.audit_nodes import AuditNodes, load_nodes
from indexer.hashing import hash_parts
from indexer.lint import Linter, flags_json
from indexer.lint.sourced import lint_sentences
from indexer.reviews import correction_sentences
from indexer.sourced import loads_resolved
from indexer.store.backends import Row
from indexer.store.catalog import Catalog
from indexer.store.lint_flags import CachedFlags

log = logging.getLogger("overstory.audit")

_Flags = list[dict[str, Any]]  # as the lint writes them and the catalog caches them


def typed_flags(flags: Sequence[Mapping[str, object]]) -> list[FlagPublic]:
    """Flags as the lint or the catalog hold them, as typed values."""
    return [FlagPublic.model_validate(f) for f in flags]


def stored_flags(flags: Sequence[FlagPublic]) -> list[dict[str, JsonValue]]:
    """Typed flags as the catalog stores them (the fields they were read with)."""
    return [f.model_dump(exclude_unset=True) for f in flags]


def node_sources(catalog: Catalog, row: Row, nodes: AuditNodes | None = None) -> list[str]:
    """What a node's summary is checked against: headings, own passages, children's summaries.

    Args:
        catalog: The catalog.
        row: An inner node.
        nodes: The node's loaded context (its inner children, their summaries and reviews);
            loaded when omitted.
    """
    nodes = nodes if nodes is not None else load_nodes(catalog, [row], with_children=True)
    passages = catalog.nodes.passage_texts([row["node_id"]])
    return _sources(row, nodes, passages.get(row["node_id"], []))


def _sources(row: Row, nodes: AuditNodes, passages: list[str]) -> list[str]:
    labels, texts = _labelled(row, nodes, passages)
    return [*labels, *texts]


def _labelled(row: Row, nodes: AuditNodes, passages: list[str]) -> tuple[list[str], list[str]]:
    """The labels (headings down to the node, children's titles) and the texts (passages,
    children's summaries) a summary is linted against."""
    labels = [*json.loads(row["heading_path"])]
    texts = [*passages]
    for child in nodes.children.get(row["node_id"], []):
        labels.append(child["title"] or "")
        texts.append(nodes.summary_text(child))
    return [s for s in labels if s], [s for s in texts if s]


def _lint(linter: Linter, text: str, row: Row, nodes: AuditNodes, passages: list[str]) -> _Flags:
    labels, texts = _labelled(row, nodes, passages)
    return flags_json(linter.lint(text, texts, labels))


class _Texts:
    """Builds' texts, each read once."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.read: dict[int, str] = {}

    def of(self, build_id: int) -> str:
        if build_id not in self.read:
            self.read[build_id] = self.catalog.build_text(build_id)
        return self.read[build_id]


def _sourced(linter: Linter, row: Row, sentences: list[Any], texts: _Texts) -> _Flags:
    labels = [h for h in json.loads(row["heading_path"]) if h]
    return flags_json(lint_sentences(linter, sentences, texts.of(int(row["build_id"])), labels))


def _inputs(row: Row, nodes: AuditNodes, linter: Linter) -> str:
    """What, beyond its cache key, decides a summary's flags: the lint itself (its version and
    alignment) and, for a summary without sourced sentences, the children's corrections."""
    if row["sentences"]:
        return hash_parts(["lint-inputs", linter.name, "sourced"])
    fixed = [
        state.correction
        for child in nodes.children.get(row["node_id"], [])
        if (state := nodes.states.get(child["node_id"])) is not None
        and state.correction is not None
    ]
    return hash_parts(["lint-inputs", linter.name, *fixed])


def _linter(linter: Linter | None) -> Linter:
    # Without a configured linter (library callers, tests): alignment by shared words only.
    return linter if linter is not None else Linter(None)


def lint_text(
    catalog: Catalog,
    row: Row,
    text: str,
    nodes: AuditNodes,
    *,
    linter: Linter | None = None,
) -> list[FlagPublic]:
    """The lint flags of ``text`` (e.g. an expert's correction) as the summary of ``row``:
    its sentences aligned with the source below the node, each checked against what it aligns
    with."""
    sentences = correction_sentences(catalog, row, text)
    return typed_flags(_sourced(_linter(linter), row, sentences, _Texts(catalog)))


def machine_flags(
    catalog: Catalog,
    targets: Sequence[Row],
    nodes: AuditNodes,
    *,
    linter: Linter | None = None,
) -> dict[str, list[FlagPublic]]:
    """Lint flags of the stored summaries of ``targets`` by node id, cached or computed now."""
    raw = _machine_flags(catalog, targets, nodes, linter=linter)
    return {node_id: typed_flags(flags) for node_id, flags in raw.items()}


def _machine_flags(
    catalog: Catalog,
    targets: Sequence[Row],
    nodes: AuditNodes,
    *,
    linter: Linter | None = None,
) -> dict[str, _Flags]:
    linter = _linter(linter)
    wanted = {r["node_id"]: _inputs(r, nodes, linter) for r in targets if r["summary_key"]}
    cached = catalog.lint.get(r["summary_key"] for r in targets if r["summary_key"])
    out: dict[str, _Flags] = {}
    todo: list[Row] = []
    for r in targets:
        if not r["summary_key"]:
            out[r["node_id"]] = []
            continue
        hit = cached.get(r["summary_key"])
        if hit is not None and hit.inputs == wanted[r["node_id"]]:
            out[r["node_id"]] = hit.flags
        else:
            todo.append(r)
    if not todo:
        return _with_judged(catalog, targets, nodes, out)
    passages = catalog.nodes.passage_texts(r["node_id"] for r in todo if not r["sentences"])
    texts = _Texts(catalog)
    computed: list[CachedFlags] = []
    for r in todo:
        if r["sentences"]:
            flags = _sourced(linter, r, loads_resolved(r["sentences"]), texts)
        else:
            stored = nodes.summaries.get(r["summary_key"])
            text = str(stored["text"]) if stored is not None else ""
            flags = _lint(linter, text, r, nodes, passages.get(r["node_id"], []))
        out[r["node_id"]] = flags
        computed.append(
            CachedFlags(summary_key=r["summary_key"], inputs=wanted[r["node_id"]], flags=flags)
        )
    catalog.lint.put(computed)
    return _with_judged(catalog, targets, nodes, out)


def _with_judged(
    catalog: Catalog, targets: Sequence[Row], nodes: AuditNodes, out: dict[str, _Flags]
) -> dict[str, _Flags]:
    """The rules' flags followed by the judge's cached ones (see ``judge_cache``)."""
    for node_id, flags in _judged_flags(catalog, targets, nodes).items():
        out[node_id] = [*out.get(node_id, []), *flags]
    return out


def lint_document(catalog: Catalog, doc_id: str, *, linter: Linter | None = None) -> int:
    """Compute and cache the lint flags of a document's served summaries; return how many.

    A document that is not served (deleted) has none.
    """
    build_id = catalog.current_build(doc_id)
    if build_id is None:
        return 0
    rows = catalog.nodes.inner_of_build(build_id)
    nodes = load_nodes(catalog, rows, with_children=False)
    summarized = [r for r in rows if r["summary_key"]]
    return len(_machine_flags(catalog, summarized, nodes, linter=linter))


class LintWarmup:
    """A publish hook: lint a newly published document's summaries, so that the first audit
    queue after a large ingest does not pay for it. It logs instead of raising: a warm-up
    never fails an ingest (the queue computes whatever is missing)."""

    def __init__(self, catalog: Catalog, linter: Linter | None = None) -> None:
        self.catalog = catalog
        self.linter = linter

    def __call__(self, doc_ids: Sequence[str]) -> None:
        for doc_id in doc_ids:
            try:
                lint_document(self.catalog, doc_id, linter=self.linter)
            except Exception:
                log.warning(
                    "linting the summaries of %s failed; the audit queue will retry",
                    doc_id,
                    exc_info=True,
                )


def judge_key(summary_key: str) -> str:
    """Where a summary's judge answer is cached (``api.service.judge_cache`` writes it)."""
    return f"judge:{summary_key}"


def judge_inputs(row: Row, nodes: AuditNodes) -> str:
    """What decides a judge answer beyond the summary: the children's corrections."""
    fixed = [
        state.correction
        for child in nodes.children.get(row["node_id"], [])
        if (state := nodes.states.get(child["node_id"])) is not None
        and state.correction is not None
    ]
    return hash_parts(["judge-inputs", *fixed])


def judged_flags(
    catalog: Catalog, targets: Sequence[Row], nodes: AuditNodes
) -> dict[str, list[FlagPublic]]:
    """Cached judge flags of ``targets`` by node id (only answers for the current inputs)."""
    raw = _judged_flags(catalog, targets, nodes)
    return {node_id: typed_flags(flags) for node_id, flags in raw.items()}


def _judged_flags(catalog: Catalog, targets: Sequence[Row], nodes: AuditNodes) -> dict[str, _Flags]:
    keyed = {judge_key(r["summary_key"]): r for r in targets if r["summary_key"]}
    if not keyed:
        return {}
    out: dict[str, _Flags] = {}
    for key, hit in catalog.lint.get(keyed).items():
        row = keyed[key]
        if hit.inputs == judge_inputs(row, nodes):
            out[row["node_id"]] = hit.flags
    return out
