"""Operations: ``/healthz`` (cheap checks of the catalog and the vector store) and ``/metrics``."""

from __future__ import annotations

import time
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from api.deps import AdminDep, IndexDep, RunnerDep
from api.models import errors
from api.service.jobs import JobRunner
from api.service.store_check import CheckPublic
from indexer.errors import BackendError, UnavailableError
from indexer.index import Index

router = APIRouter(tags=["operate"])


class CatalogHealth(BaseModel):
    """The catalog database the service really uses, and that it answers."""

    backend: Literal["sqlite", "postgresql"]
    status: Literal["ok"]


class HealthPublic(BaseModel):
    """The service is up and its stores answer."""

    status: Literal["ok"]
    catalog: CatalogHealth
    sqlite: Literal["ok"] | None = Field(
        None, description="Deprecated, as `catalog`: present on a SQLite catalog only."
    )
    vectors: Literal["ok"]
    vector_store: str
    documents: int
    auth: str
    seconds: float


def _check(index: Index) -> dict[str, Any]:
    started = time.perf_counter()
    problems: dict[str, str] = {}
    documents = 0
    backend = index.catalog.dialect
    try:
        documents = index.catalog.served_document_count()
    except Exception as exc:  # any failure is a finding here, not a crash
        problems["catalog"] = f"{backend}: {exc}"
    try:
        index.vectors.count()
    except Exception as exc:
        problems["vectors"] = (
            str(exc.__cause__ or exc) if isinstance(exc, BackendError) else str(exc)
        )
    if problems:
        raise UnavailableError(f"unhealthy: {', '.join(sorted(problems))}", detail=problems)
    return {
        "status": "ok",
        "catalog": {"backend": backend, "status": "ok"},
        **({"sqlite": "ok"} if backend == "sqlite" else {}),
        "vectors": "ok",
        "vector_store": "chroma-server" if index.settings.chroma_url else "chroma-embedded",
        "documents": documents,
        "auth": index.settings.auth,
        "seconds": round(time.perf_counter() - started, 4),
    }


@router.get(
    "/healthz",
    response_model=HealthPublic,
    responses=errors(503),
    response_model_exclude_none=True,
    summary="Liveness and readiness: the catalog and the vector store answer",
)
async def healthz(index: IndexDep) -> HealthPublic:
    """No key needed. 503 with the canonical error body when a store does not answer."""
    return HealthPublic.model_validate(await run_in_threadpool(_check, index))


def _gauges(
    index: Index, runner: JobRunner
) -> dict[str, tuple[str, list[tuple[dict[str, str], float]]]]:
    documents = index.catalog.served_document_count()
    by_level = index.catalog.served_level_counts()
    jobs = runner.store.counts()
    return {
        "overstory_documents": ("Documents with a served revision.", [({}, float(documents))]),
        "overstory_nodes": (
            "Nodes of served revisions, by level.",
            [({"level": level}, float(n)) for level, n in by_level.items()],
        ),
        "overstory_jobs": (
            "Ingestion jobs by status.",
            [({"status": s}, float(n)) for s, n in jobs.items()],
        ),
    }


@router.get(
    "/metrics",
    response_class=PlainTextResponse,
    responses={200: {"content": {"text/plain": {}}, "description": "Prometheus text format."}},
    summary="Prometheus metrics",
)
async def metrics(request: Request, index: IndexDep, runner: RunnerDep) -> PlainTextResponse:
    """Requests by route and status, latency histograms, jobs by status, documents, nodes."""
    gauges = await run_in_threadpool(_gauges, index, runner)
    text = request.app.state.metrics.render(gauges)
    return PlainTextResponse(text, media_type="text/plain; version=0.0.4; charset=utf-8")


@router.get(
    "/v1/check",
    response_model=CheckPublic,
    responses=errors(401, 403),
    summary="Check the store (admin): every served node has its vector, no vector is orphaned",
)
async def check(runner: RunnerDep, _: AdminDep) -> CheckPublic:
    """Waits for a running ingestion to finish, then compares SQLite and the vector store."""
    return await run_in_threadpool(runner.check_store)
