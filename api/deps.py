"""FastAPI plumbing as ``Annotated`` aliases: the app's objects and the role a route needs.

Authentication happens in :mod:`api.middleware` (before a body is read); the role
dependencies here authorize. Roles are cumulative: reader < editor < auditor < admin.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from api.service.jobs import JobRunner
from api.service.keys import ApiKey, KeyStore, authorize
from indexer.errors import AuthError, InvalidRequestError
from indexer.index import Index
from indexer.settings import Settings

bearer = HTTPBearer(
    auto_error=False,
    scheme_name="ApiKey",
    description="An Overstory API key (`overstory keys create --role reader`), sent as "
    "`Authorization: Bearer ovs_…`.",
)


def get_settings(request: Request) -> Settings:
    """The service's settings."""
    settings: Settings = request.app.state.settings
    return settings


def get_index(request: Request) -> Index:
    """The service's index."""
    index: Index = request.app.state.index
    return index


def get_runner(request: Request) -> JobRunner:
    """The ingestion job runner."""
    runner: JobRunner = request.app.state.jobs
    return runner


def get_keys(request: Request) -> KeyStore:
    """The API key store."""
    keys: KeyStore = request.app.state.keys
    return keys


SettingsDep = Annotated[Settings, Depends(get_settings)]
IndexDep = Annotated[Index, Depends(get_index)]
RunnerDep = Annotated[JobRunner, Depends(get_runner)]
KeyStoreDep = Annotated[KeyStore, Depends(get_keys)]


def require(role: str) -> Callable[..., ApiKey]:
    """A dependency that lets a request through only with a key of ``role`` or above."""

    def dependency(
        request: Request,
        _credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> ApiKey:
        principal: ApiKey | None = getattr(request.state, "principal", None)
        if principal is None:  # the middleware authenticates every /v1 request
            raise AuthError("this endpoint needs an API key: send 'Authorization: Bearer <key>'")
        authorize(principal, role)
        return principal

    dependency.__name__ = f"require_{role}"
    return dependency


require_reader = require("reader")
require_editor = require("editor")
require_auditor = require("auditor")
require_admin = require("admin")

ReaderDep = Annotated[ApiKey, Depends(require_reader)]
EditorDep = Annotated[ApiKey, Depends(require_editor)]
AuditorDep = Annotated[ApiKey, Depends(require_auditor)]
AdminDep = Annotated[ApiKey, Depends(require_admin)]


async def check_query_limits(request: Request, settings: SettingsDep) -> None:
    """Enforce ``max_query_chars`` and ``max_k`` on a JSON body with ``query`` and/or ``k``.

    Applied to the query and select routers so that the limits hold whatever their own request
    models allow.
    """
    if "json" not in request.headers.get("content-type", ""):
        return
    try:
        body: Any = await request.json()
    except ValueError:
        return  # FastAPI reports malformed JSON itself
    if not isinstance(body, dict):
        return
    query = body.get("query")
    if isinstance(query, str) and len(query) > settings.max_query_chars:
        raise InvalidRequestError(
            f"the query is {len(query):,} characters; the limit is {settings.max_query_chars:,}"
            " (setting max_query_chars)",
            detail={"field": "query", "limit": settings.max_query_chars},
        )
    k = body.get("k")
    if isinstance(k, int) and not isinstance(k, bool) and not 1 <= k <= settings.max_k:
        raise InvalidRequestError(
            f"k must be between 1 and {settings.max_k} (setting max_k); got {k}",
            detail={"field": "k", "limit": settings.max_k},
        )


QueryLimitsDep = Depends(check_query_limits)
