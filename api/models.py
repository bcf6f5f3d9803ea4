"""Models shared by every route: the canonical error body and the error responses to document."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, JsonValue


class ErrorDetail(BaseModel):
    """What went wrong: a stable ``code``, a human message and optional structured detail."""

    code: str = Field(description="Stable machine-readable code, e.g. `not_found`.")
    message: str = Field(description="What went wrong and, where useful, what to do.")
    detail: JsonValue = Field(None, description="Structured context (limits, ids, field errors).")


class ErrorBody(BaseModel):
    """The one error body of every non-2xx response."""

    error: ErrorDetail


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries documenting canonical error bodies."""
    text = {
        400: "Bad input (e.g. an empty or binary file).",
        401: "No API key, or an unknown or revoked one.",
        403: "The API key's role does not allow this (auth off: another origin or host).",
        404: "No such resource.",
        409: "The resource is not in a state that allows this.",
        410: "The revision was dropped by the retention rule (setting `keep_revisions`).",
        413: "The upload or request body is too large.",
        415: "Unsupported file type.",
        422: "Invalid request (a field, a limit, a doc_id with '..', an unparseable file).",
        429: "Too many ingestion jobs queued; retry later.",
        503: "A dependency (SQLite, the vector store) is unavailable.",
    }
    return {s: {"model": ErrorBody, "description": text[s]} for s in statuses}


AUTH_ERRORS = errors(401, 403, 422)
