"""The one exception hierarchy of Overstory.

    OverstoryError                      500 internal
    ├── BadInputError                   400 bad_input
    │   ├── UnsupportedFormatError      415 unsupported_format
    │   ├── ParseError                  422 parse_error
    │   ├── InvalidRequestError         422 invalid_request
    │   └── TooLargeError               413 too_large
    ├── AuthError                       401 unauthorized
    │   └── ForbiddenError              403 forbidden
    ├── NotFoundError                   404 not_found
    ├── ConflictError                   409 conflict
    ├── TooManyJobsError                429 too_many_jobs
    ├── UnavailableError                503 unhealthy
    ├── ConfigError                     500 config_error
    ├── BackendError                    502 backend_error   (a model server, a vector store)
    │   └── SummarizerError             502 summarizer_error
    └── StoreInconsistentError          500 store_inconsistent

Every error carries an HTTP status and a stable ``code`` as class attributes; the HTTP layer turns
any of them into the one canonical body ``{"error": {"code", "message", "detail"}}`` and the CLI
into a one-line message and a non-zero exit code. Third-party exceptions are mapped at the
boundary with ``raise ... from exc``.
"""

from __future__ import annotations

from typing import Any


class OverstoryError(Exception):
    """Base of every error Overstory raises on purpose."""

    status: int = 500
    code: str = "internal"

    def __init__(self, message: str, *, detail: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail

    def to_body(self) -> dict[str, Any]:
        """The canonical JSON error body."""
        return {"error": {"code": self.code, "message": self.message, "detail": self.detail}}


class BadInputError(OverstoryError):
    status = 400
    code = "bad_input"


class UnsupportedFormatError(BadInputError):
    status = 415
    code = "unsupported_format"


class ParseError(BadInputError):
    status = 422
    code = "parse_error"


class InvalidRequestError(BadInputError):
    status = 422
    code = "invalid_request"


class TooLargeError(BadInputError):
    status = 413
    code = "too_large"


class AuthError(OverstoryError):
    status = 401
    code = "unauthorized"


class ForbiddenError(AuthError):
    status = 403
    code = "forbidden"


class NotFoundError(OverstoryError):
    status = 404
    code = "not_found"


class ConflictError(OverstoryError):
    status = 409
    code = "conflict"


class TooManyJobsError(OverstoryError):
    """Too many ingestion jobs are waiting; the client should retry later."""

    status = 429
    code = "too_many_jobs"


class UnavailableError(OverstoryError):
    """A dependency of the service (SQLite, the vector store) does not answer."""

    status = 503
    code = "unhealthy"


class ConfigError(OverstoryError):
    status = 500
    code = "config_error"


class BackendError(OverstoryError):
    status = 502
    code = "backend_error"


class SummarizerError(BackendError):
    code = "summarizer_error"


class StoreInconsistentError(OverstoryError):
    status = 500
    code = "store_inconsistent"
