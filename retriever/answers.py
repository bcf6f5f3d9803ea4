"""What a query answers, as typed values: one model each, from the retriever out to HTTP, MCP,
the CLI and the integrations.

The HTTP response models are these models (their JSON is ``POST /v1/query``'s body); the MCP
tools and ``overstory query --json`` dump them with :meth:`QueryAnswer.to_json`. A field left
unset (``support`` without ``expand``, ``intent`` without the mix, ``comparisons`` of a
retrieval) is absent from the JSON rather than null.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from indexer.sourced import ResolvedSentence

Level = Literal["passage", "section", "chapter", "document", "cluster"]


class Answer(BaseModel):
    """A frozen answer model; its JSON keeps only the fields that were set."""

    model_config = ConfigDict(frozen=True)

    def to_json(self) -> dict[str, JsonValue]:
        """The JSON body: aliases (``from``), fields that were never set left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class SourceSpan(Answer):
    """A range of the source a summary sentence rests on."""

    char_start: int = Field(description="Start in the revision's extracted text.")
    char_end: int = Field(description="End (exclusive) in the revision's extracted text.")
    pages: list[int] | None = Field(description="First and last page; null without pages.")


class Sentence(Answer):
    """One sentence of a summary and the source spans it rests on."""

    text: str
    spans: list[SourceSpan] = Field(description="Where in the source it comes from.")
    kind: Literal["lead", "fact", "statement", "part", "outline"] = Field(
        description="`lead`: what the node is about; `fact`: a value, default, limit or rule; "
        "`statement`: another sentence of the source; `part`: one part of the node by its "
        "heading and lead; `outline`: parts named by their headings."
    )
    verified: bool = Field(
        description="False where the sentence's cited spans were not found to support it "
        "(a language model's citation that failed the check, a correction not found in the "
        "source)."
    )

    @staticmethod
    def of(sentence: ResolvedSentence) -> Sentence:
        """The answer form of a resolved summary sentence."""
        return Sentence(
            text=sentence.text,
            spans=[
                SourceSpan(char_start=s.char_start, char_end=s.char_end, pages=s.pages)
                for s in sentence.spans
            ],
            kind=sentence.kind,  # type: ignore[arg-type]  # validated by the model
            verified=sentence.verified,
        )


class Covers(Answer):
    """The passages a summary covers."""

    passages: int = Field(description="Number of passages below the summarized node.")
    first: str | None = Field(description="node_id of the first passage covered.")
    last: str | None = Field(description="node_id of the last passage covered.")
    ids: list[str] | None = Field(default=None, description="A cluster's passages, listed.")


class Hit(Answer):
    """One result: a quote (passage) or a summary, with its provenance."""

    rank: int | None = Field(description="1 = best; null for a supporting passage.")
    node_id: str
    kind: Literal["passage", "summary"]
    level: Level
    score: float = Field(description="The ranker's score; compare within one response only.")
    text: str = Field(description="A passage's text, or the summary.")
    doc_id: str
    source: str
    revision: str = Field(description="The served revision the node belongs to.")
    heading_path: list[str]
    char_start: int = Field(description="Start of the node in the revision's extracted text.")
    char_end: int
    pages: list[int] | None = Field(description="First and last page; null without pages.")
    covers: Covers | None = Field(description="What a summary covers; null for a passage.")
    label: str = Field(description="`quote`, or what the summary summarizes, with pages.")
    summarizer: str | None = Field(description="backend/model@prompt of a summary.")
    review: str | None = Field(description="Audit state of a summary, when reviewed.")
    support: list[Hit] | None = Field(
        default=None, description="With `expand`: a summary's best supporting passages."
    )
    sentences: list[Sentence] | None = Field(
        description="A summary's sentences, each with the source spans it rests on; null for "
        "a passage."
    )


class IntentReading(Answer):
    """How the query was read: what it asks for, with the probability of each reading."""

    label: Literal["passage", "section", "document"] = Field(
        description="`passage`: a specific fact; `section`: a chapter or section as a whole; "
        "`document`: the whole document."
    )
    score: float = Field(description="Probability of `label`.")
    scores: dict[str, float] = Field(description="Probability of each reading (sum 1).")
    source: Literal["estimated", "request"] = Field(
        description="`estimated` by the intent model, or forced by the request's `intent`."
    )


class RouteReading(Answer):
    """Why the query went where it went."""

    route: Literal["comparison", "retrieval"]
    score: float = Field(description="Sum of the weights of the change cues that fired.")
    threshold: float = Field(description="The score from which a question is about change.")
    rules: list[str] = Field(description="The change cues that fired.")
    source: Literal["rule", "request"] = Field(
        description="`rule`: decided by the cues; `request`: forced by the request's `route`."
    )


# the comparison of revisions --------------------------------------------------------------
class Quote(Answer):
    """A passage of one revision, quoted."""

    node_id: str
    label: str = Field(description="`quote`.")
    revision: str
    heading_path: list[str]
    text: str
    char_start: int
    char_end: int
    pages: list[int] | None


class SectionSummary(Answer):
    """One revision's summary of a changed section."""

    label: str = Field(description="`summary of …, revision …`.")
    revision: str
    node_id: str
    text: str
    summarizer: str


class SectionChange(Answer):
    """One section that differs between two revisions."""

    change: str = Field(description="added | removed | moved | renamed | changed")
    heading_path: list[str] = Field(
        description="Where it is in the newer revision (older: removed)."
    )
    old_heading_path: list[str] | None = Field(
        default=None, description="Where it was, when moved, renamed or under a renamed parent."
    )
    pages: list[int] | None = None
    old_pages: list[int] | None = Field(
        default=None, description="Its pages in the older revision."
    )
    diff: str | None = Field(
        default=None, description="Unified diff by sentence, or the section's text."
    )
    before: list[Quote] = Field(
        default=[], description="Passages of the older revision that differ."
    )
    after: list[Quote] = Field(
        default=[], description="Passages of the newer revision that differ."
    )
    summaries: list[SectionSummary] = Field(
        default=[], description="Both revisions' summaries of a section whose text changed."
    )
    includes: list[list[str]] = Field(
        default=[], description="Sections below an added or removed one (part of the same change)."
    )
    edited: bool = Field(
        default=False, description="A moved or renamed section whose text changed too."
    )


class RevisionRef(Answer):
    """One of the two revisions compared."""

    revision: str
    ingested_at: float | None = Field(description="When it was published (epoch seconds).")
    ingested: str | None = Field(description="The same, ISO 8601 in UTC.")


class ChangeAnchor(Answer):
    """What in the question chose the revisions."""

    since: str | None = Field(description="The date read from the question, or null.")
    revisions: list[str] = Field(description="Revision hash prefixes named in the question.")
    from_words: str | None = Field(description="The words that gave the date or revisions.")


class ChangeScope(Answer):
    """The part of the document compared."""

    level: str = Field(description="`document`, `chapter` or `section`.")
    heading_path: list[str]
    named: str | None = Field(description="The heading the question named, or null.")


class ValueAnswer(Answer):
    """A question about a specific value."""

    terms: list[str] = Field(description="The words of the value asked about (stemmed).")
    changed: bool = Field(description="True when changed sentences hold the value.")
    unchanged: list[Quote] = Field(
        description="When it did not change: the passages holding it, quoted."
    )


class ChangeSummary(Answer):
    """One paragraph on what changed, by the configured summarizer."""

    label: str = Field(description="`change summary of …`.")
    text: str | None
    summarizer: str | None
    cached: bool
    error: str | None = None


class Comparison(Answer):
    """A change question answered for one document."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    doc_id: str
    change_summary: ChangeSummary | None = Field(
        description="Null when the request set `change_summary` to false."
    )
    from_: RevisionRef = Field(alias="from", serialization_alias="from")
    to: RevisionRef
    anchor: ChangeAnchor
    scope: ChangeScope
    value: ValueAnswer | None
    counts: dict[str, int]
    changes: list[SectionChange] = Field(description="The changes in scope.")
    note: str | None


class QueryAnswer(Answer):
    """Results best first, from the latest complete revision of each document; or, for a
    question about change, the comparisons of revisions that answer it."""

    query: str
    kind: Literal["retrieval", "comparison"] | None = Field(
        default=None, description="`comparison`: answered from the diff (`comparisons`)."
    )
    route: RouteReading | None = None
    intent: IntentReading | None = Field(
        default=None,
        description="How the query was read; it weighs passages and summaries by level.",
    )
    comparisons: list[Comparison] | None = Field(
        default=None, description="With `kind: comparison`: one per document the question is about."
    )
    results: list[Hit]
