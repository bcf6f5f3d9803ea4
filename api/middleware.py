"""The service's ASGI middleware: metrics, body size limits, authentication, last-resort errors.

One pure ASGI middleware (no ``BaseHTTPMiddleware``: it would buffer streaming bodies):

- every request is timed and counted by method, route template and status;
- a request body over its limit is refused with 413 before it is read (``Content-Length``) or as
  soon as it crosses the limit (chunked): uploads may carry ``max_document_bytes`` plus
  multipart overhead, any other request 1 MiB;
- with auth off, a request from a foreign ``Host`` or a write from another origin is refused
  (:mod:`api.origin`: CSRF and DNS rebinding);
- a ``/v1`` request is authenticated here, before its body is read, so an anonymous client
  cannot make the service spool an upload; the routes' role dependencies then authorize it;
- an unexpected exception is logged once with an incident id and answered with the canonical
  500 body.
"""

from __future__ import annotations

import json
import logging
import time
import uuid

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.metrics import Metrics
from api.origin import check_request
from api.service.keys import ApiKey, KeyStore
from indexer.errors import (
    AuthError,
    ForbiddenOriginError,
    OverstoryError,
    TooLargeError,
    error_body,
)

log = logging.getLogger("overstory.http")

JSON_BODY_LIMIT = 1024 * 1024
MULTIPART_SLACK = 1024 * 1024
DEV_PRINCIPAL = ApiKey(key_id="local", role="admin", name="auth off (development)", created_at=0.0)


async def send_json(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]
) -> None:
    """Send a complete JSON response."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def too_large_error(limit: int, *, upload: bool) -> TooLargeError:
    """The 413 for a body over ``limit``."""
    what = "an upload" if upload else "a request body"
    hint = " (setting max_document_bytes plus 1 MiB for the form)" if upload else ""
    return TooLargeError(f"{what} may be at most {limit:,} bytes{hint}", detail={"limit": limit})


class ServiceMiddleware:
    """Metrics, body limits, authentication and the last-resort 500 (see the module doc)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        metrics: Metrics,
        keys: KeyStore,
        auth: str,
        upload_limit: int,
        allowed_hosts: tuple[str, ...] = (),
    ) -> None:
        self.app = app
        self.metrics = metrics
        self.keys = keys
        self.auth = auth
        self.upload_limit = upload_limit
        self.allowed_hosts = allowed_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        state = {"status": 500, "started": False}

        async def send_tracked(message: Message) -> None:
            if message["type"] == "http.response.start":
                state["status"] = message["status"]
                state["started"] = True
            await send(message)

        route: str = "(unmatched)"
        try:
            refused = await self._admit(scope, send_tracked)
            if refused is not None:
                route = refused
                return
            limit, upload = self._body_limit(scope)
            await self.app(scope, _limited(receive, limit, upload=upload), send_tracked)
            matched = scope.get("route")
            if matched is not None:
                route = str(
                    getattr(matched, "path_format", None) or getattr(matched, "path", route)
                )
        except OverstoryError as exc:
            # One of ours that escaped the app's handlers (a body over its limit crossed while
            # a dependency read it, say): its own status and one log line, never a 500.
            log.warning("refused %s %s: %s", scope.get("method"), scope.get("path"), exc.message)
            if not state["started"]:
                await self._refuse(send_tracked, exc)
        except Exception as exc:
            incident = uuid.uuid4().hex[:12]
            log.exception(
                "unexpected error (incident %s) in %s %s",
                incident,
                scope.get("method"),
                scope.get("path"),
                exc_info=exc,
            )
            if not state["started"]:
                error = OverstoryError(
                    f"internal error (incident {incident}); see the server log",
                    detail={"incident": incident},
                )
                await send_json(send_tracked, error.status, _encoded(error), [])
        finally:
            self.metrics.observe(
                method=scope["method"],
                route=route,
                status=int(state["status"]),
                seconds=time.perf_counter() - started,
            )

    def _body_limit(self, scope: Scope) -> tuple[int, bool]:
        """The body limit of a request (whatever its transfer encoding) and whether it is an
        upload."""
        upload = scope["method"] == "POST" and scope["path"].rstrip("/") == "/v1/documents"
        return (self.upload_limit + MULTIPART_SLACK if upload else JSON_BODY_LIMIT), upload

    async def _admit(self, scope: Scope, send: Send) -> str | None:
        """Answer a request refused before the app sees it (origin, size, key).

        Returns:
            The refusal's route label for the metrics; None: admitted.
        """
        path = scope["path"]
        limit, upload = self._body_limit(scope)
        try:
            if self.auth == "off":
                check_request(scope, allowed_hosts=self.allowed_hosts)
        except ForbiddenOriginError as exc:
            await self._refuse(send, exc)
            return "(forbidden origin)"
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            await self._refuse(send, too_large_error(limit, upload=upload))
            return "(refused)"
        if path == "/v1" or path.startswith("/v1/"):
            try:
                principal = await self._authenticate(scope)
            except AuthError as exc:
                await self._refuse(send, exc)
                return "(unauthenticated)"
            scope.setdefault("state", {})["principal"] = principal
        return None

    async def _authenticate(self, scope: Scope) -> ApiKey:
        if self.auth == "off":
            return DEV_PRINCIPAL
        header = ""
        for name, value in scope["headers"]:
            if name == b"authorization":
                header = value.decode("latin-1")
                break
        scheme, _, token = header.partition(" ")
        if not header:
            raise AuthError("this endpoint needs an API key: send 'Authorization: Bearer <key>'")
        if scheme.lower() != "bearer" or not token.strip():
            raise AuthError("the Authorization header must be 'Bearer <key>'")
        return await anyio.to_thread.run_sync(self.keys.authenticate, token.strip())

    @staticmethod
    async def _refuse(send: Send, exc: OverstoryError) -> None:
        headers = [(b"www-authenticate", b"Bearer")] if exc.status == 401 else []
        await send_json(send, exc.status, _encoded(exc), headers)


def _encoded(exc: OverstoryError) -> bytes:
    return json.dumps(error_body(exc)).encode("utf-8")


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _limited(receive: Receive, limit: int, *, upload: bool) -> Receive:
    """``receive`` raising the 413 as soon as the body read so far crosses ``limit``.

    Whoever reads the body sees the same :class:`TooLargeError`: a route's own dependency, or
    FastAPI's body parser (which wraps it in its 400; ``api.errors`` unwraps it).
    """
    total = 0

    async def receive_limited() -> Message:
        nonlocal total
        message = await receive()
        if message["type"] == "http.request":
            total += len(message.get("body", b""))
            if total > limit:
                raise too_large_error(limit, upload=upload)
        return message

    return receive_limited
