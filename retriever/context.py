"""A budgeted context: a question and a token budget in, the best mix that fits out.

A chatbot wants the context that fits its prompt, not a ranked list to pack itself. The
retriever's ranking (the mix, with its reading of the question) decides what the context is for:
a global question (the intent step reads it as asking for a section or the document) gets the
summary of the node it asks about, the other summaries of the top ranks, the summaries of that
node's child sections, the next :data:`LATER` ranked summaries (none as tuned: the share of the
budget in the ranking's order, below, does that hedge now), then the ranked passages under the
node, then the rest of the ranking in rank order, and only then the
passages under the node that the ranking did not find but that best match the question; a
specific question gets its best passages in rank order (with ``FOLLOW``, the best ones bring the
passage after them; read without confidence, the summaries of the top ranks come third). Nodes
are taken best first while the assembled context fits the budget; what does not fit is skipped
for what does, and a summary too long for what is left keeps its first sentences.

A reading can be wrong, and a global one that is wrong spends its budget on the wrong part: a
section question read as asking about the whole document opens with the summaries of the
document's chapters, and the section asked about, ranked a few places lower, no longer fits,
while top-k packing, which follows the ranking, still reaches it. So a share of the budget
(:data:`RANKED`) follows the ranking's order: a global context takes its nodes alternately from
its own order and from the ranking, from whichever has had less than its share of the tokens.
:mod:`retriever.context_pieces` assembles the pieces: no text twice, reading order, a citation
number for each. The constants were compared on the tuning half of the real-manual questions
(``benchmarks/bench_context.py``).

Tokens are counted with the tokenizer the request names: ``minilm`` (default; the bundled
all-MiniLM-L6-v2 WordPiece tokenizer, no download), ``cl100k_base`` (tiktoken's GPT-4
encoding, from the copy llama-index bundles) or ``words`` (words × 1.3, rounded up).
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from indexer.errors import NotFoundError
from indexer.reviews import review_states_by_id
from indexer.validation import REQUEST_CONFIG, WholeNumber
from retriever.context_pieces import Chosen, ContextPiece, drafts, finish, render
from retriever.request import QueryLimits, check_query, document_ids, query_schema
from retriever.snapshot import NodeRecord, Snapshot

if TYPE_CHECKING:
    import numpy as np

    from retriever.retriever import Retriever

Tokenizer = Literal["minilm", "cl100k_base", "words"]
MIN_BUDGET = 50
MAX_BUDGET = 32_000
CANDIDATES = 30  # ranked candidates read
BELOW = 40  # unranked passages under a global question's node, taken by cosine
FOLLOW = 0  # specific: the best passages that bring the passage after them
SUMMARIES = 3  # global: the summaries of the top ranks taken (the best one first)
TOP = 5  # global: the ranks those summaries must be in
CHILDREN = 8  # global: the summaries of the best summary's child sections taken after them
LATER = 0  # global: the summaries ranked below the top ranks, taken after those children
UNSURE = 0.8  # specific: below this probability of the reading, the top summaries come third
RANKED = 0.3  # global: the share of the budget taken in the ranking's order
HEADER = 20  # tokens a piece's header line takes, about
FULL = 24  # tokens left under which no piece fits (a header line alone takes about 20)


def _document_limits(schema: dict[str, Any], model: type[Any]) -> None:
    query_schema(schema["properties"], model.limits)


class ContextRequest(BaseModel):
    """A question and the token budget its context must fit; only ``query`` is required.

    The plain class holds the default query limits; ``with_limits`` gives the model of others
    (``Retriever.limits``, the store's).
    """

    model_config = ConfigDict(**REQUEST_CONFIG, frozen=True, json_schema_extra=_document_limits)

    limits: ClassVar[QueryLimits] = QueryLimits()

    query: str = Field(description="The question (the same rules as `POST /v1/query`).")
    budget: WholeNumber = Field(
        1000,
        ge=MIN_BUDGET,
        le=MAX_BUDGET,
        description=f"Tokens the context may take ({MIN_BUDGET}–{MAX_BUDGET:,}), labels included.",
    )
    tokenizer: Tokenizer = Field(
        "minilm",
        description="How tokens are counted: `minilm` (the bundled embedding model's "
        "tokenizer), `cl100k_base` (GPT-4's) or `words` (words × 1.3).",
    )
    documents: tuple[str, ...] | None = Field(
        None,
        description="Only these doc_ids (default: every document).",
        json_schema_extra={"minItems": 1},
    )
    intent: Literal["auto", "passage", "section", "document"] = Field(
        "auto", description="How the question is read; `auto`: estimated; else forced."
    )

    @classmethod
    def with_limits(cls, limits: QueryLimits) -> type[ContextRequest]:
        """The model that enforces ``limits`` (built once per limits)."""
        return _limited(limits)

    @field_validator("query", mode="before")
    @classmethod
    def _check_query(cls, value: object) -> str:
        return check_query(value, max_chars=cls.limits.max_chars)

    @field_validator("documents", mode="before")
    @classmethod
    def _check_documents(cls, value: object) -> tuple[str, ...] | None:
        return document_ids(value)


@functools.cache
def _limited(limits: QueryLimits) -> type[ContextRequest]:
    return type("ContextRequest", (ContextRequest,), {"limits": limits, "__module__": __name__})


@dataclass(frozen=True)
class Context:
    """A budgeted context, as prompt text and as labelled pieces.

    Attributes:
        query: The question.
        intent: How it was read: ``passage``, ``section`` or ``document``.
        mode: ``global`` (a summary, then passages under it) or ``specific`` (passages).
        budget: The token budget.
        tokenizer: How tokens were counted.
        tokens: Tokens of ``text`` (at most ``budget``).
        pieces: The pieces in the order of ``text``; ``citation`` numbers them.
        text: Prompt-ready text: each document's ``# source › headings`` line, then each of its
            pieces' ``[n] label | headings below`` line and text.
    """

    query: str
    intent: str
    mode: Literal["global", "specific"]
    budget: int
    tokenizer: Tokenizer
    tokens: int
    pieces: tuple[ContextPiece, ...]
    text: str


def counter(name: Tokenizer) -> Callable[[str], int]:
    """The token count of a tokenizer name (see the module's docstring)."""
    if name == "words":
        return lambda text: math.ceil(len(text.split()) * 1.3)
    if name == "cl100k_base":
        encoding = _tiktoken()
        return lambda text: len(encoding.encode(text, disallowed_special=()))
    from indexer.tokens import count_tokens

    return count_tokens


@lru_cache(maxsize=1)
def _tiktoken():  # type: ignore[no-untyped-def]
    import importlib.util

    if "TIKTOKEN_CACHE_DIR" not in os.environ:  # llama-index's bundled copy: no download
        spec = importlib.util.find_spec("llama_index.core")
        if spec and spec.submodule_search_locations:
            base = list(spec.submodule_search_locations)[0]
            os.environ["TIKTOKEN_CACHE_DIR"] = os.path.join(base, "_static", "tiktoken_cache")
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")


@dataclass(frozen=True)
class Plan:
    """What a context may hold, best first, before the budget: the nodes and the reading.

    ``ranked`` is the retriever's ranking (a global plan's; empty for a specific one), of which
    the context takes :data:`RANKED` of its budget in rank order."""

    query: str
    intent: str
    mode: Literal["global", "specific"]
    wanted: tuple[NodeRecord, ...]
    snapshot: Snapshot
    ranked: tuple[NodeRecord, ...] = ()


def build_context(retriever: Retriever, request: ContextRequest) -> Context:
    """The context of a question within its budget.

    Raises:
        InvalidRequestError: The query is empty, too long or binary.
        NotFoundError: A document in ``request.documents`` is not indexed.
        BackendError: The vector store failed.
    """
    return fill(retriever, plan(retriever, request), request)


def plan(retriever: Retriever, request: ContextRequest) -> Plan:
    """The ranked nodes of a question in the order a context takes them (see the module).

    Raises:
        InvalidRequestError: The query is empty, too long or binary.
        NotFoundError: A document in ``request.documents`` is not indexed.
    """
    query = retriever.request(
        request.query,
        k=min(CANDIDATES, retriever.limits.max_k),
        documents=list(request.documents) if request.documents else None,
        intent=request.intent,
    )
    snapshot = retriever.snapshots.take()
    for doc_id in query.documents or ():
        if doc_id not in snapshot.documents:
            raise NotFoundError(f"no document {doc_id!r}", detail={"doc_id": doc_id})
    vector = retriever.encode(query.query)
    ranking = retriever.rank(query, vector, snapshot, pipeline=retriever.pipeline)
    ranked = [c.node for c in ranking.candidates]
    label = ranking.intent.label if ranking.intent is not None else "passage"
    if label == "passage":
        wanted = specific_order(retriever, ranked)
        sure = ranking.intent.scores["passage"] if ranking.intent is not None else 1.0
        if sure < UNSURE:  # it may ask about a part after all: the summaries a global reading
            # would open with (an extractive one may even hold the sentence asked for)
            tops = [n for n in ranked[:TOP] if not n.is_passage][:SUMMARIES]
            wanted[min(2, len(wanted)) : min(2, len(wanted))] = tops
        return Plan(query.query, label, "specific", tuple(wanted), snapshot)
    wanted = global_order(retriever, ranked, vector)
    return Plan(query.query, label, "global", tuple(wanted), snapshot, tuple(ranked))


def global_order(
    retriever: Retriever, ranked: list[NodeRecord], vector: np.ndarray
) -> list[NodeRecord]:
    """The best summary, the next best summaries of the top ranks, the summaries of the best
    one's child sections, the next :data:`LATER` ranked summaries, the ranked passages under the
    best one, the rest of the ranking in rank order (summaries and passages), then the
    passages under the best one that the ranking did not find, by cosine.

    Whatever the ranking found comes before what only the cosine to the best summary suggests:
    when the best summary is not the part asked about, the passages under it are the least
    likely evidence, and a budget spent on them would crowd out the ranked summaries and
    passages that a plain top-k list would have packed."""
    summaries = [n for n in ranked if not n.is_passage]
    passages = [n for n in ranked if n.is_passage]
    if not summaries:
        return passages
    head = summaries[0]
    extra = [n for n in summaries[1:SUMMARIES] if n in ranked[:TOP]]
    extra += _child_summaries(retriever, head, ranked)[:CHILDREN]
    extra += [n for n in summaries[1:] if n not in extra][:LATER]
    below = retriever.closest_below(head, vector)
    inside = {p.node_id for p, _ in below}
    first = [p for p in passages if p.node_id in inside]
    found = {n.node_id for n in ranked}
    by_cosine = [p for p, _ in below if p.node_id not in found][:BELOW]
    rest = [n for n in ranked if n is not head]
    return [head, *extra, *first, *rest, *by_cosine]


def _child_summaries(
    retriever: Retriever, head: NodeRecord, ranked: list[NodeRecord]
) -> list[NodeRecord]:
    """The summaries of the node's child sections: those ranked first, then in reading order."""
    rows = retriever.catalog.nodes.children(head.node_id, head.build_id, inner=True)
    children = [NodeRecord.from_row(r) for r in rows]
    order = {n.node_id: i for i, n in enumerate(ranked)}
    return sorted(children, key=lambda n: (order.get(n.node_id, len(order)), n.ordinal))


def specific_order(retriever: Retriever, ranked: list[NodeRecord]) -> list[NodeRecord]:
    """The ranked passages, each of the best few followed by the passage after it."""
    passages = [n for n in ranked if n.is_passage]
    out: list[NodeRecord] = []
    for i, p in enumerate(passages):
        out.append(p)
        if i < FOLLOW:
            out += _next_passage(retriever, p)
    return out


def _next_passage(retriever: Retriever, passage: NodeRecord) -> list[NodeRecord]:
    """The passage after ``passage`` under the same parent (none at the section's end)."""
    if passage.parent_id is None:
        return []
    parent = retriever.catalog.nodes.records_by_id([passage.parent_id]).get(passage.parent_id)
    if parent is None:
        return []
    siblings = retriever.catalog.nodes.records_below(parent)
    ids = [s.node_id for s in siblings]
    if passage.node_id not in ids:
        return []
    i = ids.index(passage.node_id)
    return siblings[i + 1 : i + 2]


def fill(retriever: Retriever, planned: Plan, request: ContextRequest) -> Context:
    """Take the planned nodes best first while the assembled context fits the budget."""
    count = lru_cache(maxsize=8192)(counter(request.tokenizer))
    items = _chosen(retriever, _unique([*planned.wanted, *planned.ranked]), planned.snapshot)
    if planned.ranked:
        by_id = {c.node.node_id: c for c in items}
        ours = [by_id[n.node_id] for n in planned.wanted if n.node_id in by_id]
        theirs = [by_id[n.node_id] for n in planned.ranked if n.node_id in by_id]
        items = alternate(ours, theirs, count, RANKED)
    taken: list[Chosen] = []
    pieces: list[ContextPiece] = []
    for item in items:
        left = request.budget - sum(p.tokens for p in pieces)
        if left < FULL:
            break
        if item.node.is_passage and count(item.text) > left and not _touches(item, taken):
            continue  # cannot fit: spare the assembly
        trial = _fitting(taken, item, count, request.budget)
        if trial is not None:
            taken.append(trial[0])
            pieces = trial[1]
    text = render(pieces)
    tokens = count(text)
    while tokens > request.budget and taken:  # a tokenizer whose parts do not add up exactly
        taken.pop()
        pieces = finish(drafts(taken), count)
        text = render(pieces)
        tokens = count(text)
    return Context(
        query=planned.query,
        intent=planned.intent,
        mode=planned.mode,
        budget=request.budget,
        tokenizer=request.tokenizer,
        tokens=tokens,
        pieces=tuple(pieces),
        text=text,
    )


def alternate(
    ours: Sequence[Chosen], ranked: Sequence[Chosen], count: Callable[[str], int], share: float
) -> list[Chosen]:
    """Both orders in one, each node once: the next node comes from the ranking while it has
    had less than ``share`` of the tokens taken so far (texts and a header line each), else
    from ``ours``; either order goes on alone once the other is spent."""
    queues = (list(ours), list(ranked))
    spent = [0, 0]
    seen: set[str] = set()
    out: list[Chosen] = []
    while queues[0] or queues[1]:
        behind = spent[1] * (1 - share) < spent[0] * share
        side = 1 if queues[1] and (behind or not queues[0]) else 0
        item = queues[side].pop(0)
        if item.node.node_id in seen:
            continue
        seen.add(item.node.node_id)
        out.append(item)
        spent[side] += count(item.text) + HEADER
    return out


def _touches(item: Chosen, taken: Sequence[Chosen]) -> bool:
    """True when a taken passage of the same revision overlaps or touches ``item``."""
    n = item.node
    return any(
        t.node.is_passage
        and t.node.build_id == n.build_id
        and t.node.char_start <= n.char_end
        and n.char_start <= t.node.char_end
        for t in taken
    )


def _fitting(
    taken: list[Chosen], item: Chosen, count: Callable[[str], int], budget: int
) -> tuple[Chosen, list[ContextPiece]] | None:
    """``item`` (a summary cut to its first sentences if need be) and the pieces with it, or
    None when it does not fit."""
    options = [item]
    if not item.node.is_passage and len(item.sentences) > 1:
        options += [
            replace(item, sentences=item.sentences[:n], text="")
            for n in range(len(item.sentences) - 1, 0, -1)
        ]
    for option in options:
        pieces = finish(drafts([*taken, option]), count)
        if sum(p.tokens for p in pieces) <= budget:
            return option, pieces
    return None


def _unique(nodes: Sequence[NodeRecord]) -> list[NodeRecord]:
    seen: set[str] = set()
    out = []
    for n in nodes:
        if n.node_id not in seen:
            seen.add(n.node_id)
            out.append(n)
    return out


def _chosen(retriever: Retriever, nodes: list[NodeRecord], snapshot: Snapshot) -> list[Chosen]:
    """The nodes with their texts (a summary: the served text, an expert's correction when
    there is one, never a rejected one) and sourced sentences."""
    catalog = retriever.catalog
    nodes = [n for n in nodes if n.build_id in snapshot.by_build]
    texts = catalog.nodes.texts_of(nodes)
    summaries = [n.node_id for n in nodes if not n.is_passage]
    sentences = catalog.nodes.sentences_of(summaries)
    states = review_states_by_id(catalog, summaries) if summaries else {}
    out = []
    for n in nodes:
        text = texts.get(n.node_id, ("", None))[0]
        found = tuple(sentences.get(n.node_id, ()))
        state = states.get(n.node_id)
        if state is not None and state.status == "rejected":
            continue
        if state is not None and state.correction is not None:
            text, found = state.correction, ()
        out.append(Chosen(n, snapshot.by_build[n.build_id], text, found))
    return out


__all__ = [
    "Context",
    "ContextPiece",
    "ContextRequest",
    "Plan",
    "alternate",
    "build_context",
    "fill",
    "plan",
]
