"""The one exception hierarchy of Overstory.

    OverstoryError                      500 internal
    ├── BadInputError                   400 bad_input
    │   ├── UnsupportedFormatError      415 unsupported_format
    │   ├── ParseError                  422 parse_error
    │   ├── InvalidRequestError         422 invalid_request
    │   ├── TooLargeError               413 too_large
    │   └── UnreadableFileError         400 unreadable
    ├── AuthError                       401 unauthorized
    │   └── ForbiddenError              403 forbidden
    │       └── ForbiddenOriginError    403 forbidden_origin (auth off: another origin or host)
    ├── NotFoundError                   404 not_found
    ├── MethodNotAllowedError           405 method_not_allowed
    ├── ConflictError                   409 conflict
    │   ├── JobSupersededError          409 superseded      (a newer revision is served)
    │   └── CatalogIntegrityError       409 integrity       (a write the catalog's rules refuse)
    ├── GoneError                       410 gone            (a revision the retention dropped)
    ├── TooManyJobsError                429 too_many_jobs
    ├── UnavailableError                503 unhealthy
    │   └── CatalogUnavailableError     503 catalog_unavailable (the catalog database)
    ├── ConfigError                     500 config_error
    ├── JobInterruptedError             500 interrupted     (the server stopped mid-job)
    ├── BackendError                    502 backend_error   (a model server, a vector store)
    │   └── SummarizerError             502 summarizer_error
    ├── StoreInconsistentError          500 store_inconsistent
    └── HTTPStatusError                 any other status the web framework answers with

Every error carries an HTTP status and a stable ``code`` as class attributes; the HTTP layer turns
any of them into the one canonical body ``{"error": {"code", "message", "detail"}}`` built by
:func:`error_body`, and the CLI into a one-line message and a non-zero exit code. Third-party
exceptions are mapped at the boundary with ``raise ... from exc`` (the web framework's own 404,
405 and 400 included, in ``api.errors``).
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

    def to_json(self) -> dict[str, Any]:
        """The error object ``{"code", "message", "detail"}`` (in a body, a job, a report)."""
        return {"code": self.code, "message": self.message, "detail": self.detail}


def error_body(exc: OverstoryError) -> dict[str, Any]:
    """The one canonical JSON error body: ``{"error": {"code", "message", "detail"}}``."""
    return {"error": exc.to_json()}


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


class UnreadableFileError(BadInputError):
    """A file that could not be read (permissions, a vanished file)."""

    code = "unreadable"


class AuthError(OverstoryError):
    status = 401
    code = "unauthorized"


class ForbiddenError(AuthError):
    status = 403
    code = "forbidden"


class ForbiddenOriginError(ForbiddenError):
    """With auth off: a request from a foreign ``Host``, or a write from another origin."""

    code = "forbidden_origin"


class NotFoundError(OverstoryError):
    status = 404
    code = "not_found"


class MethodNotAllowedError(OverstoryError):
    status = 405
    code = "method_not_allowed"


class ConflictError(OverstoryError):
    status = 409
    code = "conflict"


class JobSupersededError(ConflictError):
    """A job's upload is older than the revision now served (or the document was deleted):
    running or retrying it would roll the document back."""

    code = "superseded"


class GoneError(OverstoryError):
    """A revision that existed but was dropped by the retention rule (setting
    ``keep_revisions``): asked for again, it is gone, not unknown."""

    status = 410
    code = "gone"


class CatalogIntegrityError(ConflictError):
    """The catalog database refused a write: a constraint, or an append-only table."""

    code = "integrity"


class TooManyJobsError(OverstoryError):
    """Too many ingestion jobs are waiting; the client should retry later."""

    status = 429
    code = "too_many_jobs"


class UnavailableError(OverstoryError):
    """A dependency of the service (SQLite, the vector store) does not answer."""

    status = 503
    code = "unhealthy"


class CatalogUnavailableError(UnavailableError):
    """The catalog database does not answer (down, locked, out of connections or space)."""

    code = "catalog_unavailable"


class ConfigError(OverstoryError):
    status = 500
    code = "config_error"


class EncoderMismatchError(ConfigError):
    """The store's vectors were made by another encoder than the one configured."""

    status = 409
    code = "encoder_mismatch"


class JobInterruptedError(OverstoryError):
    """The server stopped while a job was running (recorded on the job after a restart)."""

    code = "interrupted"


class BackendError(OverstoryError):
    status = 502
    code = "backend_error"


class SummarizerError(BackendError):
    code = "summarizer_error"


class StoreInconsistentError(OverstoryError):
    status = 500
    code = "store_inconsistent"


class HTTPStatusError(OverstoryError):
    """An HTTP status the web framework answered with that no class above stands for; the
    instance carries the status and code."""

    code = "http_error"

    def __init__(
        self, message: str, *, detail: Any = None, status: int = 500, code: str | None = None
    ) -> None:
        super().__init__(message, detail=detail)
        self.status = status
        self.code = code or self.code
