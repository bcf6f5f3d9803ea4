"""Query-free selection over HTTP: ``POST /v1/select`` (K clusters with representative passages)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from api.deps import IndexDep
from api.models import errors
from retriever.selection import SelectionRequest, select

router = APIRouter(prefix="/v1", tags=["select"])


class SelectRequest(BaseModel):
    """What to select; every field is optional (K then comes from the budget or the elbow)."""

    k: int | None = Field(
        None,
        ge=1,
        description="Clusters (outputs) wanted. Absent: from `budget_tokens`, else the elbow.",
    )
    documents: list[str] | None = Field(
        None, description="Only these doc_ids (default: every served document)."
    )
    under: str | None = Field(None, description="Only the passages below this node_id.")
    per_cluster: int = Field(
        1, ge=1, le=50, description="Representatives per cluster, diverse (MMR)."
    )
    method: Literal["centroid", "rank", "balanced"] | None = Field(
        None,
        description="`centroid`: passage nearest each k-means centroid; `rank`: TextRank inside "
        "each cluster; `balanced`: over-cluster then merge, so small topics keep a cluster. "
        "Default: setting `select_method`.",
    )
    budget_tokens: int | None = Field(
        None,
        ge=1,
        description="Context budget in model tokens; K = budget ÷ (mean passage tokens × "
        "per_cluster). Ignored when `k` is given.",
    )


class SelectedPassage(BaseModel):
    """A representative passage in the query result format, plus its distance to the centroid."""

    rank: int = Field(description="Position inside its cluster, 1 = best.")
    node_id: str
    kind: Literal["passage"] = "passage"
    level: Literal["passage"] = "passage"
    score: float = Field(
        description="The method's relevance: cosine to the centroid (`centroid`, `balanced`) "
        "or TextRank centrality relative to the cluster's best (`rank`)."
    )
    text: str
    doc_id: str
    source: str
    revision: str
    heading_path: list[str]
    char_start: int = Field(description="Start of the passage in the build's extracted text.")
    char_end: int
    pages: list[int | None] | None = Field(description="First and last page; null without pages.")
    covers: None = None
    label: Literal["quote"] = "quote"
    distance_to_centroid: float = Field(description="Euclidean distance to the cluster centroid.")


class SelectedCluster(BaseModel):
    """One output: a cluster of passages."""

    cluster: int = Field(description="1 = the largest cluster.")
    size: int = Field(description="Passages in the cluster.")
    share: float = Field(description="size ÷ passages in scope.")
    label: str = Field(description="Dominant heading path and distinctive terms.")
    heading_path: list[str] = Field(description="Heading path at least half the members share.")
    terms: list[str]
    representatives: list[SelectedPassage]


class SelectResponse(BaseModel):
    """K clusters covering the scope, largest first."""

    k: int
    k_rule: Literal["request", "budget", "elbow"] = Field(description="What chose K.")
    method: str
    n_passages: int = Field(description="Passages in scope.")
    per_cluster: int
    seed: int
    scope: dict[str, Any]
    k_detail: dict[str, Any] = Field(description="Inputs of the K rule (budget, inertia curve).")
    method_detail: dict[str, Any]
    clusters: list[SelectedCluster]


@router.post(
    "/select",
    response_model=SelectResponse,
    summary="Select K representative passages without a query",
    responses=errors(404, 409, 422),
)
def post_select(body: SelectRequest, index: IndexDep) -> dict[str, Any]:
    """Cluster the stored passage vectors (no re-embedding) and return each cluster's size,
    label and representative passages with provenance. Deterministic for a given store."""
    request = SelectionRequest(
        k=body.k,
        documents=tuple(body.documents) if body.documents is not None else None,
        under=body.under,
        per_cluster=body.per_cluster,
        method=body.method,
        budget_tokens=body.budget_tokens,
    )
    return select(index, request).to_dict()
