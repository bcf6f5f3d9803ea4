"""The change summary: one paragraph on what changed, written by the configured summarizer.

The summarizer reads one line per change (what kind, where, and the sentences that went and
came) as the passages of a node titled "Changes in …": an LLM backend writes prose from them,
the extractive one picks the most central lines. The summary is cached in the summary cache
under a key made of the summarizer's identity, both revision hashes and the scope, so a second
question about the same pair and part costs nothing.
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor

from indexer.diff import RevisionDiff, SectionChange
from indexer.diff_sections import Section, changed_sentences, sentences
from indexer.hashing import hash_parts
from indexer.store.catalog import Catalog
from indexer.summarizers import Summarizer
from indexer.summarizers.base import SummaryRequest, SummaryResult
from retriever.answers import ChangeSummary

PROMPT = "change-summary-v1"
_QUOTED = 3  # sentences quoted per side of a change
_MAX_LINES = 60


def change_summary(
    catalog: Catalog,
    summarizer: Summarizer,
    *,
    diff: RevisionDiff,
    changes: list[SectionChange],
    old: dict[tuple[str, ...], Section],
    new: dict[tuple[str, ...], Section],
    scope: tuple[str, ...] | None,
    title: str,
) -> ChangeSummary:
    """The change summary of ``changes`` (those of one scope), from the cache when it holds it."""
    ident = summarizer.identity
    key = hash_parts(
        [
            PROMPT,
            ident.backend,
            ident.model,
            ident.prompt_version,
            diff.from_revision,
            diff.to_revision,
            json.dumps(list(scope or ())),
        ]
    )
    label = "change summary" + (f" of {scope[-1]}" if scope else f" of {title}")
    cached = catalog.summaries([key]).get(key)
    if cached is not None:
        return ChangeSummary(label=label, text=cached.text, summarizer=cached.writer, cached=True)
    if not changes:
        text = f"No section of {scope[-1] if scope else title} changed between the two revisions."
        return ChangeSummary(label=label, text=text, summarizer=None, cached=False)
    where = scope[-1] if scope else title
    request = SummaryRequest(
        key=key,
        level="section",
        title=f"Changes in {where} from revision {diff.from_revision[:12]} to"
        f" {diff.to_revision[:12]}",
        heading_path=list(scope or (title,)),
        passages=[_line(c, old, new) for c in changes[:_MAX_LINES]],
    )
    return _written(catalog, summarizer, request, label)


def _written(
    catalog: Catalog, summarizer: Summarizer, request: SummaryRequest, label: str
) -> ChangeSummary:
    """Ask the summarizer, and keep a good answer in the summary cache."""
    ident = summarizer.identity
    result = _run(summarizer, request)
    if result.text is None:
        return ChangeSummary(
            label=label, text=None, summarizer=ident.label, cached=False, error=result.error
        )
    catalog.put_summaries([result.cache_record(ident)])
    return ChangeSummary(label=label, text=result.text, summarizer=ident.label, cached=False)


def _run(summarizer: Summarizer, request: SummaryRequest) -> SummaryResult:
    """The summarizer's answer; from a thread that runs an event loop (an async caller of the
    retriever), in a worker thread, since ``asyncio.run`` cannot nest."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(summarizer.summarize([request]))[0]
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, summarizer.summarize([request])).result()[0]


def _line(
    change: SectionChange, old: dict[tuple[str, ...], Section], new: dict[tuple[str, ...], Section]
) -> str:
    """One change as a sentence or two the summarizer can read."""
    here = change.heading_path[-1] if change.heading_path else "the document"
    before = (change.old_heading_path or [""])[-1]
    if change.change == "added":
        first = " ".join(sentences(new[tuple(change.heading_path)].body)[:1])
        return f"Section {here} was added. {first}".strip()
    if change.change == "removed":
        first = " ".join(sentences(old[tuple(change.heading_path)].body)[:1])
        return f"Section {here} was removed; it said: {first}".strip()
    head = {
        "moved": f"Section {here} was moved from {' › '.join(change.old_heading_path or [])}.",
        "renamed": f"Section {before} was renamed {here}.",
        "changed": f"Section {here} was changed."
        if change.heading_path[1:]
        else f"The text directly under {here} was changed."
        if change.heading_path
        else "The document's text was changed.",
    }[change.change]
    if change.change != "changed" and not change.edited:
        return head
    path = tuple(change.heading_path)
    gone, came = changed_sentences(old[tuple(change.old_heading_path or path)].body, new[path].body)
    was = " ".join(_readable(u) for u in gone[:_QUOTED])
    now = " ".join(_readable(u) for u in came[:_QUOTED])
    return f"{head} It said: “{was}” It now says: “{now}”"


def _readable(unit: str) -> str:
    """A table row read as a phrase ("Impeller nut, M24, 110 N·m"), other sentences as they are."""
    if unit.startswith("|"):
        return ", ".join(c.strip() for c in unit.strip().strip("|").split("|") if c.strip()) + "."
    return unit
