"""Each kind's head, reranked within the kind; the summaries above the best passages join theirs.

A summary can answer a broad question even when its own text is not what the search found: its
passages were. So every inner node above the best passages (their section, chapter and
document) joins the summary candidates, and so does the root of a document the query is asked
within; each summary also learns which of the best passages lie below it (a feature of the mix).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from retriever.candidates import Candidate
from retriever.intent import Intent
from retriever.intent_cues import named_numbers
from retriever.mix import MixInput
from retriever.skeleton import Skeletons
from retriever.snapshot import Snapshot
from retriever.tokenize import tokenize


@dataclass
class Prepared:
    """A query's candidates before the mix: each kind ranked on its own.

    Attributes:
        query: The query text.
        passages: The passage head, best first (``score``: relevance among passages).
        summaries: The summary head with the summaries above the passage head, best first.
        below: For each summary, the passages of the head that lie below it.
        rest: Fused candidates beyond the heads, best first (ranked after them).
        titles: The title of each summary's document, where it has one.
    """

    query: str
    passages: list[Candidate]
    summaries: list[Candidate]
    below: dict[str, list[str]] = field(default_factory=dict)
    rest: list[Candidate] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)

    def mix_input(self, intent: Intent) -> MixInput:
        """What the mix reads, for a given reading of the query."""
        return MixInput(
            query=self.query,
            intent=intent,
            passages=self.passages,
            summaries=self.summaries,
            below=self.below,
            titles=self.titles,
        )


def summaries_above(
    passages: list[Candidate],
    *,
    skeletons: Skeletons,
    snapshot: Snapshot,
    documents: list[str] | None,
    present: set[str],
) -> tuple[list[Candidate], dict[str, list[str]]]:
    """The summaries above ``passages`` (and the roots of ``documents``) not yet ``present``,
    and the passages below every summary."""
    below: dict[str, list[str]] = defaultdict(list)
    added: list[Candidate] = []
    seen = set(present)
    for passage in passages:
        for node in skeletons.ancestors(passage.node):
            below[node.node_id].append(passage.node_id)
            # A summary stored without a vector only repeats its single child (see
            # indexer.summary_pass.find_repeats): the passage or the child's summary stands.
            if node.summary_key and node.vector_id and node.node_id not in seen:
                seen.add(node.node_id)
                added.append(Candidate(node))
    for doc_id in documents or ():
        served = snapshot.documents.get(doc_id)
        if served is None:
            continue
        root = skeletons.root(served.build_id, served.root_node)
        if root is not None and root.summary_key and root.node_id not in seen:
            seen.add(root.node_id)
            added.append(Candidate(root))
    return added, dict(below)


def document_titles(
    summaries: list[Candidate], *, skeletons: Skeletons, snapshot: Snapshot
) -> dict[str, str]:
    """The title of each summary's document, where it has one (its root's title)."""
    titles: dict[str, str] = {}
    for doc_id in {c.node.doc_id for c in summaries}:
        served = snapshot.documents.get(doc_id)
        root = skeletons.root(served.build_id, served.root_node) if served else None
        if root is not None and root.title:
            titles[doc_id] = root.title
    return titles


def named_summaries(
    query: str,
    *,
    skeletons: Skeletons,
    candidates: list[Candidate],
    present: set[str],
) -> list[Candidate]:
    """The chapters and sections the query names by number or heading, not yet ``present``,
    in the documents of ``candidates`` (the documents the query is about)."""
    words = set(tokenize(query))
    numbers = set(named_numbers(query))
    if not words and not numbers:
        return []
    builds = sorted({c.node.build_id for c in candidates})
    found = skeletons.named(builds, words=words, numbers=numbers)
    return [Candidate(n) for n in found if n.node_id not in present]
