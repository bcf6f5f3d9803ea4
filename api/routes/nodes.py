"""Browse one node: ``GET /v1/nodes/{node_id}`` with its parent, children and covered passages."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.concurrency import run_in_threadpool

from api.deps import IndexDep, ReaderDep
from api.models import errors
from api.service.browse import node_detail
from api.service.node_models import NodeDetailPublic

router = APIRouter(prefix="/v1", tags=["browse"])


@router.get(
    "/nodes/{node_id}",
    response_model=NodeDetailPublic,
    responses=errors(401, 403, 404, 422),
    summary="A node with its parent, children and covered passages",
)
async def get_node(
    node_id: str,
    index: IndexDep,
    _: ReaderDep,
    passages_limit: Annotated[int, Query(ge=0, le=1000)] = 100,
    passages_offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
) -> NodeDetailPublic:
    """A node with its parent, children and the passages it covers (one page of them)."""
    return await run_in_threadpool(
        node_detail,
        index.catalog,
        node_id,
        passages_limit=passages_limit,
        passages_offset=passages_offset,
    )
