"""Errors at the HTTP boundary: every failure leaves as the one canonical body.

Overstory's own errors keep their status. The web framework's own answers are mapped into the
exception tree first (:func:`from_http_exception`): an unknown route is a ``NotFoundError``, a
wrong method a ``MethodNotAllowedError``, a body that cannot be parsed and a request that does
not validate are ``InvalidRequestError``. Anything unexpected is a logged 500.
"""

from __future__ import annotations

import logging
from http import HTTPStatus

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from indexer.errors import (
    BadInputError,
    HTTPStatusError,
    InvalidRequestError,
    MethodNotAllowedError,
    NotFoundError,
    OverstoryError,
    error_body,
)
from indexer.validation import invalid_request

log = logging.getLogger("overstory.http")

_STATUS_CODES = {
    400: "bad_input",
    401: "unauthorized",
    403: "forbidden",
    406: "not_acceptable",
    413: "too_large",
    415: "unsupported_format",
    429: "too_many_requests",
}


def error_response(exc: OverstoryError) -> JSONResponse:
    """The canonical response of an error (with the headers its status calls for)."""
    headers = None
    if exc.status == 401:
        headers = {"WWW-Authenticate": "Bearer"}
    elif exc.status == 429:
        headers = {"Retry-After": "10"}
    return JSONResponse(error_body(exc), status_code=exc.status, headers=headers)


def from_http_exception(request: Request, exc: StarletteHTTPException) -> OverstoryError:
    """The web framework's own error as an error of the tree."""
    if isinstance(exc.__cause__, OverstoryError):
        # Raised while FastAPI parsed the body (a streamed body crossing its limit): ours.
        return exc.__cause__
    status = exc.status_code
    if status == 400 and exc.__cause__ is not None:
        # FastAPI's "error parsing the body" (bad encoding, broken multipart): a request that
        # does not validate, like malformed JSON.
        return InvalidRequestError(
            "the request body could not be parsed (malformed JSON or form data, or not "
            f"UTF-8): {type(exc.__cause__).__name__}"
        )
    if status == 404:
        return NotFoundError(f"no route {request.method} {request.url.path}")
    if status == 405:
        return MethodNotAllowedError(
            f"method {request.method} is not allowed on {request.url.path}"
        )
    message = exc.detail if isinstance(exc.detail, str) and exc.detail else None
    if status == 400:
        return BadInputError(message or HTTPStatus(status).phrase)
    code = _STATUS_CODES.get(status, f"http_{status}")
    return HTTPStatusError(message or HTTPStatus(status).phrase, status=status, code=code)


def add_error_handlers(app: FastAPI) -> None:
    """Map every exception a route can raise to the canonical body."""

    async def overstory_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, OverstoryError)
        return error_response(exc)

    async def validation_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return error_response(invalid_request(exc.errors()))

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        mapped = from_http_exception(request, exc)
        response = error_response(mapped)
        for name, value in (exc.headers or {}).items():
            response.headers.setdefault(name, value)
        return response

    async def unexpected_error(request: Request, exc: Exception) -> JSONResponse:
        # Reached only if something escapes ServiceMiddleware (which logs and answers first).
        log.error("unexpected error in %s %s", request.method, request.url.path, exc_info=exc)
        return error_response(OverstoryError("internal error"))

    app.add_exception_handler(OverstoryError, overstory_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, unexpected_error)
