"""FastAPI plumbing as ``Annotated`` aliases: the app's objects and the role a route needs.

Authentication happens in :mod:`api.middleware` (before a body is read); the role
dependencies here authorize. Roles are cumulative: reader < editor < auditor < admin. A body
whose model depends on the store's settings is read by :func:`json_body`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar, get_args, get_origin

from fastapi import Depends, Request
from fastapi.exceptions import RequestValidationError
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ValidationError

from api.service.jobs import JobRunner
from api.service.keys import ApiKey, KeyStore, authorize
from indexer.errors import AuthError, InvalidRequestError
from indexer.index import Index
from indexer.settings import Settings

M = TypeVar("M", bound=BaseModel)

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


async def json_body(request: Request, model: type[M]) -> M:
    """The request's JSON body, validated once by ``model``.

    For a route whose request model belongs to the app's store (its limits come from the
    settings): FastAPI fixes a body's type when the route is defined, so such a route reads its
    body here and documents it with :func:`json_body_schema`. Errors leave as FastAPI's own
    (locations under ``body``), through the app's validation handler.
    """
    raw = await request.body()
    if not raw.strip():
        raise RequestValidationError(
            [{"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}]
        )
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        raise RequestValidationError(
            [{**err, "loc": ("body", *err["loc"])} for err in errors]
        ) from exc


def json_body_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The ``openapi_extra`` of a route that reads its body with :func:`json_body`."""
    schema = model.model_json_schema()
    assert "$defs" not in schema, "inline body schemas cannot hold definitions"
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": schema}},
        }
    }


async def refuse_unknown_query(request: Request) -> None:
    """Refuse query parameters the route does not declare (a misspelt ``?limt=5`` is an
    error, not silently ignored), as unknown body fields are.

    Raises:
        InvalidRequestError: Naming the unknown parameters.
    """
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None or not request.query_params:
        return
    known = _query_params(dependant)
    unknown = sorted(set(request.query_params) - set(known))
    if unknown:
        raise InvalidRequestError(
            f"unknown query parameter{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}",
            detail={"unknown": unknown},
        )
    repeated = sorted(
        name
        for name, many in known.items()
        if not many and len(request.query_params.getlist(name)) > 1
    )
    if repeated:
        raise InvalidRequestError(
            f"query parameter given more than once: {', '.join(repeated)}",
            detail={"repeated": repeated},
        )


def _query_params(dependant: Any) -> dict[str, bool]:
    """Each query parameter of a route (and its dependencies): whether it takes a list."""
    params = {p.alias: _is_list(p.field_info.annotation) for p in dependant.query_params}
    for sub in dependant.dependencies:
        params.update(_query_params(sub))
    return params


def _is_list(annotation: Any) -> bool:
    origin = get_origin(annotation)
    if origin in (list, tuple, set, frozenset):
        return True
    return any(_is_list(arg) for arg in get_args(annotation)) if origin is not None else False
