"""What the audit answers: the queue, a recorded review, the audit log, and the lint flags.

The answers of :mod:`api.service.audit_queue` and :mod:`api.service.review`, and the response
models of ``GET /v1/audit/queue``, ``POST /v1/nodes/{node_id}/review`` and ``GET /v1/audit/log``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from api.service.node_models import CoversPublic, SummarizerPublic

ReviewStatus = Literal["approved", "corrected", "rejected"]  # indexer.reviews.REVIEW_STATUSES
QueueStatus = Literal["pending", "approved", "corrected", "rejected", "all"]


class FlagPublic(BaseModel):
    """One lint flag: a problem found in a summary against its source."""

    kind: str = Field(
        description="condition, negation, number, absolute or dependency (an extracted sentence "
        "that leans on source text the summary leaves out; the judge may also say unsupported)."
    )
    message: str = Field(description="What was dropped or changed.")
    summary_text: str = Field(description="The summary sentence the flag is about.")
    source_text: str | None = Field(
        description="The source it is compared with, in one line: the text its sentence cites."
    )
    summary_quote: str | None = Field(
        None,
        description="The words of the summary to highlight (an invented number, an added "
        "absolute); null when the whole sentence is meant.",
    )
    source_quote: str | None = Field(
        None, description="The words of the source to highlight (the dropped condition)."
    )
    origin: str = Field("rules", description="`rules` (the lint) or `judge` (the judge model).")
    rule: str = Field(
        "", description="The check that raised it (`negation.added`, `number.absent`, …)."
    )
    confidence: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="How likely the flag names a real fault: the share of such flags that did on "
        "the planted-fault benchmark, where half the summaries hold one (so a real queue's rate "
        "is lower; the order is what counts). Null for the judge's flags.",
    )
    sentence: int | None = Field(
        None, description="Index of the summary sentence it is about (in the node's sentences)."
    )


class ReviewPublic(BaseModel):
    """A stored review. Reviews hold per document and node hash (the source below the node)."""

    review_id: int
    doc_id: str
    node_id: str = Field(description="The node reviewed (ids change with every build).")
    node_hash: str
    heading_path: list[str]
    level: str
    summary_key: str | None
    status: ReviewStatus
    corrected_text: str | None = Field(description="The expert's summary, if corrected.")
    note: str | None
    reviewer: str
    flags: list[FlagPublic] = Field(description="Lint flags of the text reviewed.")
    created_at: float


class ServedReviewPublic(BaseModel):
    """The review that applies to a node's summary as served."""

    model_config = ConfigDict(extra="allow")

    status: ReviewStatus
    reviewer: str
    review_id: int
    reviewed_at: float
    note: str | None
    corrected: bool = Field(description="The summary served is the expert's correction.")
    machine_summary: str | None = None
    machine_summarizer: SummarizerPublic | None = None


class QueueNodePublic(BaseModel):
    """A summarized node as the auditor sees it (its summary as served)."""

    node_id: str
    doc_id: str
    revision: str
    level: str
    title: str | None
    heading_path: list[str]
    pages: list[int | None] | None
    char_start: int
    char_end: int
    hash: str
    summary: str | None
    summarizer: SummarizerPublic | None
    covers: CoversPublic | None
    review: ServedReviewPublic | None


class SourcesPublic(BaseModel):
    """The passages a summary covers; ``href`` shows the node with them."""

    passages: int
    first: str | None
    last: str | None
    href: str


class QueueItemPublic(BaseModel):
    """One summary to audit."""

    node: QueueNodePublic
    status: Literal["pending", "approved", "corrected", "rejected"]
    flags: list[FlagPublic]
    hidden_flags: int = Field(
        description="Flags not shown: less likely than `lint_min_confidence` to name a real "
        "fault (`all_flags` shows them)."
    )
    review: ReviewPublic | None = Field(
        description="The latest review of the node (for a stale node: the one of the old source)."
    )
    stale: bool = Field(description="The source changed since the node was reviewed.")
    reason: str | None = Field(description="Why a reviewed node is pending again.")
    sources: SourcesPublic


class QueuePublic(BaseModel):
    """``GET /v1/audit/queue``: stale first, then by lint flags, top levels, document order."""

    items: list[QueueItemPublic]
    total: int
    limit: int
    offset: int
    status: QueueStatus
    counts: dict[str, int] = Field(description="Nodes by status (and stale) before filtering.")


class ReviewedNodePublic(BaseModel):
    """The node as served after the review (the queue's fields, in the order reviews show them)."""

    node_id: str
    doc_id: str
    level: str
    heading_path: list[str]
    summary: str | None
    summarizer: SummarizerPublic | None
    review: ServedReviewPublic | None
    title: str | None
    pages: list[int | None] | None
    char_start: int
    char_end: int
    hash: str
    covers: CoversPublic | None
    revision: str


class ReviewResultPublic(BaseModel):
    """``POST /v1/nodes/{node_id}/review``."""

    review: ReviewPublic
    flags: list[FlagPublic] = Field(
        description="Lint flags of the summary now served (the correction's, if corrected)."
    )
    node: ReviewedNodePublic


class LogEntryPublic(BaseModel):
    """One audit log entry."""

    entry_id: int
    at: float
    actor: str
    action: str
    doc_id: str
    node_id: str | None
    node_hash: str | None
    review_id: int | None
    detail: dict[str, JsonValue] = Field(description="What the action recorded (free-form).")


class AuditLogPublic(BaseModel):
    """``GET /v1/audit/log``, newest first."""

    entries: list[LogEntryPublic]
    total: int
    limit: int
    offset: int
