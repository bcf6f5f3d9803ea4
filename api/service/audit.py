"""The audit workflow: experts approve, correct or reject summaries; a queue says what to read next.

- :func:`record_review` records an expert's verdict (a :class:`ReviewCreate`) on a served node's
  summary, :func:`review` the same from raw values (:mod:`.review`);
- :func:`queue` lists the served summaries to read, most urgent first, and :func:`audit_log`
  who reviewed what (:mod:`.audit_queue`);
- :func:`lint_document` and :class:`LintWarmup` compute the lint flags the queue is ordered by
  (:mod:`.lint_cache`);
- :func:`corrections` and :func:`effective_summary` (from :mod:`indexer.reviews`) are what the
  ingest and the node views use.
"""

from __future__ import annotations

from api.service.audit_queue import MAX_QUEUE_PAGE, QUEUE_STATUSES, audit_log, queue
from api.service.lint_cache import LintWarmup, lint_document, node_sources
from api.service.review import (
    MAX_CORRECTION_CHARS,
    MAX_NOTE_CHARS,
    ReviewCreate,
    ReviewStatus,
    record_review,
    review,
)
from indexer.reviews import REVIEW_STATUSES, corrections, effective_summary

__all__ = [
    "MAX_CORRECTION_CHARS",
    "MAX_NOTE_CHARS",
    "MAX_QUEUE_PAGE",
    "QUEUE_STATUSES",
    "REVIEW_STATUSES",
    "LintWarmup",
    "ReviewCreate",
    "ReviewStatus",
    "audit_log",
    "corrections",
    "effective_summary",
    "lint_document",
    "node_sources",
    "queue",
    "record_review",
    "review",
]
