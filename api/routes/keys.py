"""API keys over HTTP (admin): create, list, revoke."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from api.deps import AdminDep, IndexDep, KeyStoreDep
from api.models import errors
from api.service.actions import record_write
from api.service.keys import KEY_ID_PATTERN
from indexer.validation import REQUEST_CONFIG, SPACE_CLASS

router = APIRouter(prefix="/v1", tags=["keys"])

RolePublic = Literal["reader", "editor", "auditor", "admin"]


class KeyCreate(BaseModel):
    """A key to create."""

    model_config = REQUEST_CONFIG

    role: RolePublic
    name: str | None = Field(
        None,
        min_length=1,
        max_length=100,
        pattern=f"^[^\\x00-\\x1f]*[^\\x00-\\x1f{SPACE_CLASS}][^\\x00-\\x1f]*$",
        description="Who holds it: printable characters, not only spaces.",
    )


class KeyPublic(BaseModel):
    """A key without its secret."""

    key_id: str
    role: RolePublic
    name: str
    active: bool
    created_at: float
    last_used_at: float | None
    revoked_at: float | None


class KeyCreatedPublic(KeyPublic):
    """A new key: ``key`` is shown this once and never stored."""

    key: str = Field(description="The API key; send it as `Authorization: Bearer <key>`.")


class KeysPublic(BaseModel):
    """``GET /v1/keys``."""

    keys: list[KeyPublic]


@router.post(
    "/keys",
    status_code=201,
    response_model=KeyCreatedPublic,
    responses=errors(400, 401, 403, 422),
    summary="Create an API key (shown once)",
)
async def create_key(
    body: KeyCreate, keys: KeyStoreDep, index: IndexDep, principal: AdminDep
) -> KeyCreatedPublic:
    """A new key of ``role``; store it now, it cannot be shown again."""
    key, record = await run_in_threadpool(lambda: keys.create(role=body.role, name=body.name))
    await run_in_threadpool(
        lambda: record_write(
            index.catalog, principal, "key.create", created=record.key_id, role=record.role
        )
    )
    return KeyCreatedPublic(key=key, **record.to_json())


@router.get(
    "/keys",
    response_model=KeysPublic,
    responses=errors(401, 403),
    summary="List API keys (without their secrets)",
)
async def list_keys(keys: KeyStoreDep, _: AdminDep) -> KeysPublic:
    """Every key, revoked ones included."""
    records = await run_in_threadpool(keys.list_keys)
    return KeysPublic(keys=[KeyPublic.model_validate(r.to_json()) for r in records])


@router.delete(
    "/keys/{key_id}",
    response_model=KeyPublic,
    responses=errors(401, 403, 404, 422),
    summary="Revoke an API key (by its id)",
)
async def revoke_key(
    key_id: Annotated[
        str,
        Path(
            pattern=KEY_ID_PATTERN,
            description="The key's id (`key_id` in `GET /v1/keys`), never the key itself.",
        ),
    ],
    keys: KeyStoreDep,
    index: IndexDep,
    principal: AdminDep,
) -> KeyPublic:
    """Revoke a key at once; requests with it get 401 from now on."""
    record = await run_in_threadpool(keys.revoke, key_id)
    await run_in_threadpool(
        lambda: record_write(
            index.catalog, principal, "key.revoke", revoked=record.key_id, role=record.role
        )
    )
    return KeyPublic.model_validate(record.to_json())
