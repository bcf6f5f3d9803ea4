"""Recording an expert's review of a served summary: approve, correct or reject.

A correction is linted against the node's sources like any summary; every review is appended to
the audit log in the same transaction. :class:`ReviewCreate` is the one request model of the HTTP
route and the CLI; what needs the stored node (a passage, a revision no longer served, approving
a correction) is checked here.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from api.service.audit_models import (
    FlagPublic,
    ReviewedNodePublic,
    ReviewPublic,
    ReviewResultPublic,
    ReviewStatus,
)
from api.service.audit_nodes import AuditNodes, load_nodes
from api.service.lint_cache import lint_text, machine_flags, stored_flags
from indexer.errors import ConflictError, InvalidRequestError, NotFoundError
from indexer.lint import Linter
from indexer.reviews import ReviewState, review_from_row
from indexer.store.backends import Row
from indexer.store.catalog import Catalog
from indexer.store.reviews import NewReview
from indexer.validation import (
    CONTROL_CHARS,
    REQUEST_CONFIG,
    SPACE_CLASS,
    is_binary_text,
    validated,
)

MAX_CORRECTION_CHARS = 20_000
MAX_NOTE_CHARS = 2_000


class ReviewCreate(BaseModel):
    """A verdict on a summary: the request of ``POST /v1/nodes/{id}/review`` and ``audit review``.

    ``text`` is the correction, for status ``corrected`` only; both texts are stripped.
    """

    model_config = ConfigDict(
        **REQUEST_CONFIG, frozen=True, json_schema_extra=lambda schema: _one_of(schema)
    )

    status: ReviewStatus
    text: str | None = Field(
        None,
        max_length=MAX_CORRECTION_CHARS,
        validate_default=True,
        description="The corrected summary; required for status `corrected` and only for it.",
    )
    note: str | None = Field(
        None, max_length=MAX_NOTE_CHARS, description="A remark for the log and the next reviewer."
    )

    @field_validator("text")
    @classmethod
    def _check_text(cls, value: str | None, info: ValidationInfo) -> str | None:
        status = info.data.get("status")
        if status is None:  # the status is invalid: that error says it
            return value
        if status != "corrected":
            if value is not None and value.strip():
                raise PydanticCustomError(
                    "text_unexpected",
                    "text is only for status 'corrected' (got status {status} with a text)",
                    {"status": repr(status)},
                )
            return None
        cleaned = (value or "").replace("\r\n", "\n").strip()
        if not cleaned:
            raise PydanticCustomError(
                "text_missing", "a correction needs the corrected summary text"
            )
        return _not_binary(cleaned, "text")

    @field_validator("note")
    @classmethod
    def _check_note(cls, value: str | None) -> str | None:
        cleaned = (value or "").strip() or None
        return _not_binary(cleaned, "note") if cleaned is not None else None


def _not_binary(value: str, field: str) -> str:
    # As a query: a NUL or another control character is binary data, not a reviewer's words.
    if is_binary_text(value):
        raise PydanticCustomError(
            f"{field}_binary",
            "{field} contains control characters or invalid text (binary data?)",
            {"field": field},
        )
    return value


_BLANK = f"^[{SPACE_CLASS}]*$"
# a text that is not blank and holds no control character (what _not_binary refuses)
_WORDS = f"^[^{CONTROL_CHARS}]*[^{SPACE_CLASS}{CONTROL_CHARS}][^{CONTROL_CHARS}]*$"


def _one_of(schema: dict[str, Any]) -> None:
    # The published schema says what the validators check: a correction has a text that is not
    # blank; an approval or a rejection has none (or a blank one, dropped); a note holds no
    # control character.
    for option in schema["properties"]["note"]["anyOf"]:
        if option.get("type") == "string":
            option["pattern"] = f"^[^{CONTROL_CHARS}]*$"
    schema["oneOf"] = [
        {
            "properties": {
                "status": {"enum": ["approved", "rejected"]},
                "text": {
                    "anyOf": [
                        {"type": "null"},
                        {"type": "string", "pattern": f"^[{SPACE_CLASS}]*$"},
                    ]
                },
            }
        },
        {
            "properties": {
                "status": {"const": "corrected"},
                "text": {"type": "string", "pattern": _WORDS},
            },
            "required": ["status", "text"],
        },
    ]


def review(
    catalog: Catalog,
    node_id: str,
    *,
    status: str,
    corrected_text: str | None = None,
    note: str | None = None,
    reviewer: str,
    key_id: str = "local",
    linter: Linter | None = None,
) -> ReviewResultPublic:
    """:func:`record_review` from raw values (validated by :class:`ReviewCreate`).

    Raises:
        InvalidRequestError: A bad status, a missing, unexpected or overlong text, an overlong
            note; and whatever :func:`record_review` raises.
    """
    request = validated(ReviewCreate, {"status": status, "text": corrected_text, "note": note})
    return record_review(catalog, node_id, request, reviewer=reviewer, key_id=key_id, linter=linter)


def record_review(
    catalog: Catalog,
    node_id: str,
    request: ReviewCreate,
    *,
    reviewer: str,
    key_id: str = "local",
    linter: Linter | None = None,
) -> ReviewResultPublic:
    """Record an expert's review of a served node's summary.

    ``approved`` of a node whose summary is a correction approves the correction (it stays the
    node's summary); ``rejected`` drops a correction (the machine summary is served again,
    marked rejected).

    Args:
        catalog: The catalog.
        node_id: A node of a document's served build that has a summary.
        request: The verdict, validated: status, the correction's text, a note.
        reviewer: Who reviews (an API key's name, a user name).
        key_id: The API key of the request (``local``: the CLI, auth off), for the audit log.
        linter: The lint the correction is checked with (default: by shared words).

    Returns:
        The stored review, the lint flags of the text now
        served (the correction's for ``corrected``) and the node as now served.

    Raises:
        InvalidRequestError: No reviewer, a passage or a node without a summary.
        NotFoundError: No such node.
        ConflictError: The node belongs to a revision that is no longer served.
    """
    reviewer = reviewer.strip()
    if not reviewer:
        raise InvalidRequestError("a review needs a reviewer", detail={"field": "reviewer"})
    row = _served_node(catalog, node_id)
    nodes = load_nodes(catalog, [row], with_children=True)
    state = nodes.states[row["node_id"]]
    text, flags = _verdict_text(catalog, row, request, nodes, linter)
    new = NewReview(
        doc_id=row["doc_id"],
        node_hash=row["hash"],
        node_id=row["node_id"],
        heading_path=row["heading_path"],
        level=row["level"],
        summary_key=row["summary_key"],
        status=request.status,
        corrected_text=text,
        note=request.note,
        reviewer=reviewer,
        flags=stored_flags(flags),
    )
    review_id = catalog.reviews.add(new, log_detail={**_log_detail(new, state), "key_id": key_id})
    return _result(catalog, row, review_id, flags)


def _result(
    catalog: Catalog, row: Row, review_id: int, flags: list[FlagPublic]
) -> ReviewResultPublic:
    stored = catalog.reviews.get(review_id)
    assert stored is not None  # written just now, in this process
    after = load_nodes(catalog, [row], with_children=False)
    doc = catalog.require_document(row["doc_id"])
    node = after.view(row, revision=doc["revision"])
    return ReviewResultPublic(
        review=ReviewPublic.model_validate(review_from_row(stored).to_json()),
        flags=flags,
        node=ReviewedNodePublic.model_validate(node.model_dump(exclude_unset=True)),
    )


def _verdict_text(
    catalog: Catalog,
    row: Row,
    request: ReviewCreate,
    nodes: AuditNodes,
    linter: Linter | None,
) -> tuple[str | None, list[FlagPublic]]:
    """The text the review leaves served (None: the machine summary) and its lint flags."""
    text = request.text
    state = nodes.states[row["node_id"]]
    if request.status == "approved" and state.correction is not None:
        text = state.correction  # approving the served correction keeps it
    if text is not None:
        return text, lint_text(catalog, row, text, nodes, linter=linter)
    return text, machine_flags(catalog, [row], nodes, linter=linter)[row["node_id"]]


def _log_detail(new: NewReview, state: ReviewState) -> dict[str, Any]:
    previous = state.latest
    return {
        "status": new.status,
        "level": new.level,
        "heading_path": json.loads(new.heading_path),
        "summary_key": new.summary_key,
        "corrected_text": new.corrected_text if new.status == "corrected" else None,
        "note": new.note,
        "flags": len(new.flags),
        "previous": (
            {"review_id": previous.review_id, "status": previous.status, "stale": state.stale}
            if previous is not None
            else None
        ),
    }


def _served_node(catalog: Catalog, node_id: str) -> Row:
    row = catalog.node(node_id)
    if row is None:
        raise NotFoundError(f"no node {node_id!r}", detail={"node_id": node_id})
    current = catalog.current_build(row["doc_id"])
    if current != row["build_id"]:
        served = None
        if current is not None:
            served = catalog.nodes.find_in_build(current, node_hash=row["hash"], level=row["level"])
        raise ConflictError(
            f"node {node_id!r} belongs to a revision of {row['doc_id']!r} that is no longer "
            "served; review the served revision's node"
            + (f" {served!r}" if served else " (reload the queue)"),
            detail={"node_id": node_id, "served_node_id": served},
        )
    if row["level"] == "passage":
        raise InvalidRequestError(
            f"node {node_id!r} is a passage (a quote of the source); only summaries are reviewed",
            detail={"node_id": node_id, "level": "passage"},
        )
    if not row["summary_key"]:
        raise InvalidRequestError(
            f"node {node_id!r} has no summary to review", detail={"node_id": node_id}
        )
    return row
