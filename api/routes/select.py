"""Query-free selection over HTTP: ``POST /v1/select`` (K clusters with representative passages)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from api.deps import IndexDep, json_body, json_body_schema
from api.models import errors
from retriever.selection import SelectionRequest, select

router = APIRouter(prefix="/v1", tags=["select"])


async def selection_request(request: Request, index: IndexDep) -> SelectionRequest:
    """The body, validated by the selection request model of the store's ``max_k``."""
    return await json_body(request, SelectionRequest.with_limits(max_k=index.settings.max_k))


SelectionBody = Annotated[SelectionRequest, Depends(selection_request)]


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


def _if_used(description: str) -> Any:
    # An input the K rule did not use is absent from the JSON, not null.
    return Field(None, description=description, exclude_if=lambda value: value is None)


class ScopePublic(BaseModel):
    """What was clustered."""

    documents: list[str] = Field(description="The documents in scope.")
    under: str | None = Field(description="The node the scope was narrowed to.")


class KDetailPublic(BaseModel):
    """The inputs of the K rule: those of ``budget`` or ``elbow``, and a cut by ``max_k``."""

    budget_tokens: int | None = _if_used("`budget`: the token budget asked for.")
    mean_passage_tokens: float | None = _if_used("`budget`: mean passage length in tokens.")
    per_cluster: int | None = _if_used("`budget`: representatives per cluster.")
    clamped: bool | None = _if_used("`budget`: K was raised to 1 or cut to the passages.")
    inertia_curve: list[list[float]] | None = _if_used("`elbow`: `[[k, inertia], ...]`.")
    limited_by_max_k: int | None = _if_used("The store's `max_k`, when it cut K.")


class KMeansDetailPublic(BaseModel):
    """How the k-means fit went (`centroid`, `rank`)."""

    inertia: float
    iterations: int


class MergeDetailPublic(BaseModel):
    """How `balanced` merged fine clusters, and what keeping documents apart did."""

    fine_clusters: int
    documents_kept_apart: int = Field(description="0 when the rule was off.")
    document_separation: float | None = Field(
        description="Null when not measured (one document, or more documents than K)."
    )


class SelectResponse(BaseModel):
    """K clusters covering the scope, largest first."""

    k: int
    k_rule: Literal["request", "budget", "elbow"] = Field(description="What chose K.")
    method: str
    n_passages: int = Field(description="Passages in scope.")
    per_cluster: int
    seed: int
    scope: ScopePublic
    k_detail: KDetailPublic = Field(description="Inputs of the K rule (budget, inertia curve).")
    method_detail: KMeansDetailPublic | MergeDetailPublic
    clusters: list[SelectedCluster]


@router.post(
    "/select",
    response_model=SelectResponse,
    summary="Select K representative passages without a query",
    responses=errors(404, 409, 422),
    openapi_extra=json_body_schema(SelectionRequest),
)
def post_select(body: SelectionBody, index: IndexDep) -> SelectResponse:
    """Cluster the stored passage vectors (no re-embedding) and return each cluster's size,
    label and representative passages with provenance. Deterministic for a given store.
    Every field is optional (K then comes from the budget or the elbow)."""
    return SelectResponse.model_validate(select(index, body).to_dict())
