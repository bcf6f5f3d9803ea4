"""A small manual and a scripted summarizer whose summaries have known lint flags (audit tests)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from indexer.index import Index
from indexer.settings import Settings
from indexer.summarizers.base import SummarizerIdentity, SummaryRequest, SummaryResult

DOC = "seal-manual.md"

MANUAL = """# Seal Manual

## 1 Seals

### 1.1 Replacement

Replace the seal only if the leakage exceeds 10 drops per minute. Do not start the pump before
the casing is filled with liquid.

### 1.2 Inspection

Inspect the seal faces every 2,000 operating hours and record the wear.

## 2 Bearings

Lubricate the bearings every 4,000 operating hours with lithium grease.
"""

# Summaries by heading: 1.1 drops its condition and its negation (the experts' failure), 1.2
# invents a number, the others are faithful.
SUMMARIES = {
    "1.1 Replacement": (
        "Replace the seal when the leakage exceeds 10 drops per minute. Start the pump before "
        "the casing is filled with liquid."
    ),
    "1.2 Inspection": "Inspect the seal faces every 5,000 operating hours and record the wear.",
    "2 Bearings": "Lubricate the bearings every 4,000 operating hours with lithium grease.",
    "1 Seals": "How to replace and inspect the seals.",
    "Seal Manual": "The manual covers seals and bearings.",
}


class ScriptedSummarizer:
    """Writes the summary listed for a node's title (a test fake with a real interface)."""

    identity = SummarizerIdentity(backend="scripted", model="audit-test", prompt_version="1")

    async def summarize(self, requests: Sequence[SummaryRequest]) -> list[SummaryResult]:
        return [
            SummaryResult(key=r.key, text=SUMMARIES.get(r.title or "", f"About {r.title}."))
            for r in requests
        ]


def audit_index(settings: Settings) -> Index:
    """An index whose summaries come from :class:`ScriptedSummarizer`."""
    return Index(settings, summarizer=ScriptedSummarizer())


def ingest_manual(index: Index, text: str = MANUAL) -> None:
    """Ingest (a version of) the manual as :data:`DOC`."""
    report = index.ingest_bytes(text.encode("utf-8"), doc_id=DOC)
    assert report.ok, report.errors


def node_by_title(tree: dict[str, Any], title: str) -> dict[str, Any]:
    """The node of a ``tree`` JSON with this title."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if node["title"] == title:
            return node
        stack.extend(node.get("children", []))
    raise AssertionError(f"no node titled {title!r}")
