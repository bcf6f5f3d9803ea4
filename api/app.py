"""The HTTP service: ``create_app(settings)`` builds it (no module-global app).

``overstory serve`` and the tests call the factory. The app holds one store's index and
retriever (``api.service.wiring``), one :class:`JobRunner` (background ingestion), the key store
and the metrics. Every error leaves as the canonical body ``{"error": {"code", "message",
"detail"}}`` (``api.errors``).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from anyio import to_thread
from fastapi import Depends, FastAPI

from api.deps import json_body_schema, refuse_unknown_query, require_auditor, require_reader
from api.errors import add_error_handlers
from api.logs import install_key_redaction
from api.metrics import Metrics
from api.middleware import ServiceMiddleware
from api.models import AUTH_ERRORS
from api.origin import LOOPBACK_HOSTS
from api.routes import (
    audit,
    audit_page,
    context,
    documents,
    health,
    jobs,
    keys,
    nodes,
    query,
    revisions,
    select,
    source_diff,
)
from api.routes.docs_page import add_docs_page
from api.service.jobs import JobRunner
from api.service.keys import KeyStore
from api.service.warmup import start_warmup
from api.service.wiring import Stack, open_stack
from indexer.errors import ConfigError
from indexer.settings import Settings
from retriever.context import ContextRequest
from retriever.selection import SelectionRequest

log = logging.getLogger("overstory.http")


def create_app(settings: Settings, *, stack: Stack | None = None) -> FastAPI:
    """Build the service for one store.

    Args:
        settings: The service's settings (store, auth mode, limits, backends).
        stack: The store's index and retriever, already open (e.g. with a loaded embedder);
            opened from ``settings`` when omitted.

    Raises:
        ConfigError: ``auth = "off"`` with a host that is not loopback.
    """
    if settings.auth == "off" and settings.host not in LOOPBACK_HOSTS:
        raise ConfigError(
            f"auth 'off' is for local development only; refusing to serve {settings.host} "
            "without API keys (use a loopback host or auth 'keys')"
        )
    install_key_redaction()
    stack = stack if stack is not None else open_stack(settings)
    runner = JobRunner(stack.index)
    key_store = KeyStore(stack.index.catalog)
    metrics = Metrics()
    app = FastAPI(
        title="Overstory",
        summary="Hierarchical summary index for retrieval over long structured documents.",
        version=_version(),
        lifespan=_lifespan(settings, stack, runner),
        docs_url=None,  # served by add_docs_page, with local assets
        openapi_url="/openapi.json",
        redoc_url=None,
        dependencies=[Depends(refuse_unknown_query)],
    )
    app.state.settings = settings
    app.state.index = stack.index
    app.state.retriever = stack.retriever
    app.state.jobs = runner
    app.state.keys = key_store
    app.state.metrics = metrics
    app.add_middleware(
        ServiceMiddleware,
        metrics=metrics,
        keys=key_store,
        auth=settings.auth,
        upload_limit=settings.max_document_bytes,
        allowed_hosts=tuple(settings.allowed_hosts),
    )
    add_error_handlers(app)
    _include_routers(app)
    add_docs_page(app, openapi_url="/openapi.json")
    _document_store_limits(app, settings, stack)
    return app


def _document_store_limits(app: FastAPI, settings: Settings, stack: Stack) -> None:
    """Make ``/openapi.json`` show this store's limits (``max_k``, ``max_query_chars``).

    The routes are declared with the default limits (module level); the bodies they read are
    validated by the store's models, so the schema is patched to those.
    """
    bodies = {
        "/v1/query": stack.retriever.request_model,
        "/v1/context": ContextRequest.with_limits(stack.retriever.limits),
        "/v1/select": SelectionRequest.with_limits(max_k=settings.max_k),
    }
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = generate()
            for path, model in bodies.items():
                schema["paths"][path]["post"].update(json_body_schema(model))
        return app.openapi_schema or generate()

    app.openapi = openapi  # type: ignore[method-assign]


def _lifespan(
    settings: Settings, stack: Stack, runner: JobRunner
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Open the vector store now: a Chroma server that does not answer fails the start.
        await to_thread.run_sync(lambda: stack.index.vectors)
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
        # Publishes by other replicas, workers or the CLI reach this replica's BM25 index.
        follower = stack.retriever.follower
        if follower is not None:
            await to_thread.run_sync(follower.start)
        start_warmup(stack.retriever)
        try:
            yield
        finally:
            if follower is not None:
                await to_thread.run_sync(follower.stop)
            await to_thread.run_sync(runner.stop)

    return lifespan


def _include_routers(app: FastAPI) -> None:
    app.include_router(health.router)
    app.include_router(documents.router)
    app.include_router(revisions.router)
    app.include_router(nodes.router)
    app.include_router(jobs.router)
    app.include_router(keys.router)
    app.include_router(audit.router, dependencies=[Depends(require_auditor)])
    app.include_router(source_diff.router, dependencies=[Depends(require_auditor)])
    app.include_router(audit_page.router)  # the static page: no key (its API calls need one)
    for router in (query.router, context.router, select.router):
        app.include_router(router, dependencies=[Depends(require_reader)], responses=AUTH_ERRORS)


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
