"""What the ``search`` tool answers: compact by default, the whole query answer on request.

An agent quotes and cites: it needs a hit's text, its label, its ids, where it is (heading path,
pages). Scores, character ranges, routing and the intent reading are for debugging; they come
with ``detail``. Compact, a ``search`` of five results is about a fifth of the REST body.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from retriever.answers import (
    Answer,
    Comparison,
    Covers,
    Hit,
    IntentReading,
    Level,
    QueryAnswer,
    RouteReading,
    Sentence,
)


class SearchHit(Answer):
    """One result, to quote (a passage) or to cite as a summary; the rest with ``detail``."""

    rank: int | None = Field(description="1 = best; null for a supporting passage.")
    node_id: str = Field(description="For read_node; the citation's id.")
    doc_id: str
    revision: str = Field(description="The served revision the text comes from.")
    kind: Literal["passage", "summary"]
    label: str = Field(description="`quote`, or what the summary summarizes, with pages.")
    heading_path: list[str]
    pages: list[int] | None = Field(description="First and last page; null without pages.")
    text: str = Field(description="A passage's text (quote it), or the summary.")
    support: list[SearchHit] | None = Field(
        default=None, description="With `expand`: a summary's best supporting passages."
    )
    # with detail only
    level: Level | None = None
    score: float | None = None
    source: str | None = None
    char_start: int | None = None
    char_end: int | None = None
    covers: Covers | None = None
    summarizer: str | None = None
    review: str | None = None
    sentences: list[Sentence] | None = None

    @staticmethod
    def compact(hit: Hit) -> SearchHit:
        """The fields an agent reads of a hit."""
        out = SearchHit(
            rank=hit.rank,
            node_id=hit.node_id,
            doc_id=hit.doc_id,
            revision=hit.revision,
            kind=hit.kind,
            label=hit.label,
            heading_path=hit.heading_path,
            pages=hit.pages,
            text=hit.text,
        )
        if hit.support is not None:
            out = out.model_copy(update={"support": [SearchHit.compact(s) for s in hit.support]})
        return out


class SearchAnswer(Answer):
    """The ``search`` tool's answer; ``route`` and ``intent`` only with ``detail``."""

    query: str
    kind: Literal["retrieval", "comparison"] | None = Field(
        default=None, description="`comparison`: answered from the diff (`comparisons`)."
    )
    route: RouteReading | None = None
    intent: IntentReading | None = None
    comparisons: list[Comparison] | None = Field(
        default=None, description="With `kind: comparison`: one per document asked about."
    )
    results: list[SearchHit]

    @staticmethod
    def of(answer: QueryAnswer, *, detail: bool) -> SearchAnswer:
        """The query answer whole (``detail``: the body of ``POST /v1/query``), or compact."""
        if detail:
            return SearchAnswer.model_validate(answer.to_json())
        compact = SearchAnswer(
            query=answer.query,
            kind=answer.kind,
            results=[SearchHit.compact(h) for h in answer.results],
        )
        if answer.comparisons is not None:
            compact = compact.model_copy(update={"comparisons": answer.comparisons})
        return compact
