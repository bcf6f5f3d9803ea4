"""The HTTP service: ``create_app(settings)`` builds it (no module-global app).

``overstory serve`` and the tests call the factory. The app holds one :class:`Index` (SQLite +
vector store), one :class:`JobRunner` (background ingestion), the key store, the metrics and the
retriever (when the ``retriever`` package provides one). Every error leaves as the canonical
body ``{"error": {"code", "message", "detail"}}``: Overstory's own errors with their status,
FastAPI's validation errors as 422, Starlette's 404/405 and anything unexpected as 500.
"""

from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from http import HTTPStatus
from typing import Any

from anyio import to_thread
from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from api.deps import QueryLimitsDep, require_auditor, require_reader
from api.metrics import Metrics
from api.middleware import BODY_TOO_LARGE, ServiceMiddleware, too_large_error
from api.models import AUTH_ERRORS
from indexer.audit import warm_lint
from indexer.errors import ConfigError, OverstoryError
from indexer.index import Index
from indexer.jobs import JobRunner
from indexer.keys import KeyStore
from indexer.settings import Settings

log = logging.getLogger("overstory.http")

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
# Routers written alongside this module, included when present; all need the reader role.
OPTIONAL_READER_ROUTERS = ("api.routes.query", "api.routes.select")
_STATUS_CODES = {
    400: "bad_input",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "too_large",
    415: "unsupported_format",
    422: "invalid_request",
    429: "too_many_requests",
}


def create_app(settings: Settings, *, index: Index | None = None) -> FastAPI:
    """Build the service for one store.

    Args:
        settings: The service's settings (store, auth mode, limits, backends).
        index: An already open index of that store (e.g. with a loaded embedder); opened from
            ``settings`` when omitted.

    Raises:
        ConfigError: ``auth = "off"`` with a host that is not loopback.
    """
    if settings.auth == "off" and settings.host not in LOOPBACK:
        raise ConfigError(
            f"auth 'off' is for local development only; refusing to serve {settings.host} "
            "without API keys (use a loopback host or auth 'keys')"
        )
    index = index if index is not None else Index(settings)
    index.on_publish.append(functools.partial(warm_lint, index.catalog))
    runner = JobRunner(index)
    keys = KeyStore(index.catalog)
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Open the vector store now: a Chroma server that does not answer fails the start.
        await to_thread.run_sync(lambda: index.vectors)
        recovered = await to_thread.run_sync(runner.start)
        if recovered["interrupted"] or recovered["resumed"]:
            log.warning(
                "after a restart: %d interrupted job(s) marked failed (retryable), "
                "%d queued job(s) resumed",
                len(recovered["interrupted"]),
                len(recovered["resumed"]),
            )
        if settings.auth == "off":
            _announce_dev_mode()
        try:
            yield
        finally:
            await to_thread.run_sync(runner.stop)

    app = FastAPI(
        title="Overstory",
        summary="Hierarchical summary index for retrieval over long structured documents.",
        version=_version(),
        lifespan=lifespan,
        docs_url="/docs",
        openapi_url="/openapi.json",
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.index = index
    app.state.jobs = runner
    app.state.keys = keys
    app.state.metrics = metrics
    app.state.retriever = _make_retriever(index, settings)

    app.add_middleware(
        ServiceMiddleware,
        metrics=metrics,
        keys=keys,
        auth=settings.auth,
        upload_limit=settings.max_document_bytes,
    )
    _add_error_handlers(app)
    _include_routers(app)
    return app


def _include_routers(app: FastAPI) -> None:
    from api.routes import audit, audit_page, documents, health, jobs, keys, nodes

    app.include_router(health.router)
    app.include_router(documents.router)
    app.include_router(nodes.router)
    app.include_router(jobs.router)
    app.include_router(keys.router)
    app.include_router(audit.router, dependencies=[Depends(require_auditor)])
    app.include_router(audit_page.router)  # the static page: no key (its API calls need one)
    for name in OPTIONAL_READER_ROUTERS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            log.info("%s is not available: its routes are not served", name)
            continue
        app.include_router(
            module.router,
            dependencies=[Depends(require_reader), QueryLimitsDep],
            responses=AUTH_ERRORS,
        )


def _make_retriever(index: Index, settings: Settings) -> Any:
    """The retriever of the ``retriever`` package, or None while it does not exist."""
    try:
        module = importlib.import_module("retriever")
    except ModuleNotFoundError as exc:
        if exc.name != "retriever":
            raise
        return None
    factory = getattr(module, "Retriever", None)
    if factory is None:
        return None
    return factory(index)


def _add_error_handlers(app: FastAPI) -> None:
    settings: Settings = app.state.settings

    async def overstory_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, OverstoryError)
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        if exc.status == 429:
            headers = {"Retry-After": "10"}
        return JSONResponse(exc.to_body(), status_code=exc.status, headers=headers)

    async def validation_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        problems = [
            {
                "loc": [str(part) for part in err.get("loc", ())],
                "msg": str(err.get("msg", "")),
                "type": str(err.get("type", "")),
            }
            for err in exc.errors()
        ]
        first = problems[0] if problems else {"loc": [], "msg": "invalid request"}
        where = ".".join(first["loc"])
        message = f"{where}: {first['msg']}" if where else str(first["msg"])
        if len(problems) > 1:
            message += f" (and {len(problems) - 1} more)"
        body = {"error": {"code": "invalid_request", "message": message, "detail": problems}}
        return JSONResponse(body, status_code=422)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        limit = request.scope.get(BODY_TOO_LARGE)
        if limit is not None:
            upload = limit > settings.max_document_bytes
            return await overstory_error(request, too_large_error(limit, upload=upload))
        status = exc.status_code
        if status == 400 and exc.__cause__ is not None:
            # FastAPI's "error parsing the body" (bad encoding, broken multipart): a request
            # that does not validate, like malformed JSON.
            body = {
                "error": {
                    "code": "invalid_request",
                    "message": "the request body could not be parsed (malformed JSON or form "
                    f"data, or not UTF-8): {type(exc.__cause__).__name__}",
                    "detail": None,
                }
            }
            return JSONResponse(body, status_code=422)
        code = _STATUS_CODES.get(status, f"http_{status}")
        if status == 404:
            message = f"no route {request.method} {request.url.path}"
        elif status == 405:
            message = f"method {request.method} is not allowed on {request.url.path}"
        elif isinstance(exc.detail, str) and exc.detail:
            message = exc.detail
        else:
            message = HTTPStatus(status).phrase
        body = {"error": {"code": code, "message": message, "detail": None}}
        return JSONResponse(body, status_code=status, headers=dict(exc.headers or {}))

    async def unexpected_error(request: Request, exc: Exception) -> JSONResponse:
        # Reached only if something escapes ServiceMiddleware (which logs and answers first).
        log.error("unexpected error in %s %s", request.method, request.url.path, exc_info=exc)
        body = {"error": {"code": "internal", "message": "internal error", "detail": None}}
        return JSONResponse(body, status_code=500)

    app.add_exception_handler(OverstoryError, overstory_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, unexpected_error)


def _announce_dev_mode() -> None:
    bar = "!" * 78
    for line in (
        bar,
        "!!  AUTH IS OFF (setting auth = 'off'): every request is treated as admin.",
        "!!  This is a local development mode; never expose this service.",
        bar,
    ):
        log.warning(line)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("overstory")
    except PackageNotFoundError:
        return "0.0.0"
