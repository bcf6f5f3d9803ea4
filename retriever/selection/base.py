"""Query-free selection: the request, the result and the interface every method implements.

A method does two things: it partitions the passage vectors into exactly K clusters, and it scores
the members of one cluster (how good a representative each is). Everything else — loading the
stored vectors, choosing K, picking diverse representatives, labels and provenance — is shared
(``retriever.selection.select``).
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Literal, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from indexer.validation import REQUEST_CONFIG, WholeNumber
from retriever.request import QueryLimits, check_k, document_ids
from retriever.selection.k_choice import KDetail

METHODS = ("centroid", "rank", "balanced")
K_RULES = ("request", "budget", "elbow")
MAX_PER_CLUSTER = 50


def _document_limits(schema: dict[str, Any], model: type[Any]) -> None:
    properties = schema["properties"]
    properties["k"]["anyOf"][0].update(minimum=1, maximum=model.max_k)
    # pydantic leaves an optional whole number's bound under its Python name
    budget = properties["budget_tokens"]["anyOf"][0]
    budget["minimum"] = budget.pop("ge", 1)


class SelectionRequest(BaseModel):
    """What the caller asks for; ``None`` means "use the default" (settings or a K rule).

    The one request of ``select``, ``overstory select`` and ``POST /v1/select``. The plain class
    allows the default ``max_k``; ``with_limits`` gives the model of a store's setting.
    """

    model_config = ConfigDict(**REQUEST_CONFIG, frozen=True, json_schema_extra=_document_limits)

    max_k: ClassVar[int] = QueryLimits().max_k

    k: WholeNumber | None = Field(
        None,
        description="Clusters (outputs) wanted, 1 to the setting `max_k`. Absent: from "
        "`budget_tokens`, else the elbow of the k-means inertia curve.",
    )
    documents: tuple[str, ...] | None = Field(
        None,
        description="Only these doc_ids (default: every served document).",
        json_schema_extra={"minItems": 1},
    )
    under: str | None = Field(
        None, description="Only the passages below this node_id (a chapter, section, cluster)."
    )
    per_cluster: WholeNumber = Field(
        1, ge=1, le=MAX_PER_CLUSTER, description="Representatives per cluster, diverse (MMR)."
    )
    method: Literal["centroid", "rank", "balanced"] | None = Field(
        None,
        description="`centroid`: passage nearest each k-means centroid; `rank`: TextRank inside "
        "each cluster; `balanced`: over-cluster then merge, so small topics keep a cluster. "
        "Default: setting `select_method`.",
    )
    budget_tokens: WholeNumber | None = Field(
        None,
        ge=1,
        description="Context budget in model tokens; K = budget ÷ (mean passage tokens × "
        "per_cluster). Ignored when `k` is given.",
    )

    @classmethod
    def with_limits(cls, *, max_k: int) -> type[SelectionRequest]:
        """The model that allows ``k`` up to ``max_k`` (built once per limit)."""
        return _limited(max_k)

    @field_validator("k")
    @classmethod
    def _check_k(cls, value: int | None) -> int | None:
        return None if value is None else check_k(value, max_k=cls.max_k)

    @field_validator("documents", mode="before")
    @classmethod
    def _check_documents(cls, value: object) -> tuple[str, ...] | None:
        return document_ids(value)


@functools.cache
def _limited(max_k: int) -> type[SelectionRequest]:
    return type("SelectionRequest", (SelectionRequest,), {"max_k": max_k, "__module__": __name__})


@dataclass(frozen=True)
class KMeansDetail:
    """How the k-means fit went (``centroid``, ``rank``)."""

    inertia: float
    iterations: int


@dataclass(frozen=True)
class MergeDetail:
    """How ``balanced`` merged fine clusters: how many, and what the document rule did.

    ``documents_kept_apart`` is 0 when the rule was off; ``document_separation`` is None when it
    was not measured (one document, or more documents than K).
    """

    fine_clusters: int
    documents_kept_apart: int
    document_separation: float | None


MethodDetail = KMeansDetail | MergeDetail


@dataclass
class Partition:
    """Exactly K non-empty clusters: ``labels[i]`` in ``0..K-1`` and one center per cluster."""

    labels: np.ndarray
    centers: np.ndarray
    detail: MethodDetail

    @property
    def k(self) -> int:
        return int(self.centers.shape[0])


class SelectionMethod(Protocol):
    """A way to cluster passages and to rank the members of a cluster."""

    name: str

    def partition(
        self, vectors: np.ndarray, k: int, *, seed: int, strata: np.ndarray | None = None
    ) -> Partition:
        """Split unit vectors of shape ``(n, d)`` into exactly ``k`` non-empty clusters.

        ``strata`` is each passage's document (``0..D-1``), for methods that use it.
        """
        ...

    def relevance(self, vectors: np.ndarray, center: np.ndarray, *, seed: int) -> np.ndarray:
        """How good a representative each member of one cluster is (higher is better)."""
        ...


@dataclass
class Representative:
    """A passage chosen for a cluster, in the query result format plus its centroid distance."""

    rank: int
    node_id: str
    score: float
    text: str
    doc_id: str
    source: str
    revision: str
    heading_path: list[str]
    char_start: int
    char_end: int
    pages: list[int] | None
    distance_to_centroid: float
    kind: str = "passage"
    level: str = "passage"
    covers: None = None
    label: str = "quote"


@dataclass
class Cluster:
    """One output: its size, share of the scope, a readable label and its representatives."""

    cluster: int
    size: int
    share: float
    label: str
    heading_path: list[str]
    terms: list[str]
    representatives: list[Representative]


@dataclass(frozen=True)
class Scope:
    """What was clustered: the documents in scope and the node it was narrowed to."""

    documents: list[str]
    under: str | None


@dataclass
class SelectionResult:
    """The whole answer of ``select``; ``to_dict`` is the JSON of the CLI and the HTTP route."""

    k: int
    k_rule: str
    method: str
    n_passages: int
    per_cluster: int
    seed: int
    scope: Scope
    k_detail: KDetail
    method_detail: MethodDetail
    clusters: list[Cluster]

    def to_dict(self) -> dict[str, JsonValue]:
        """Plain JSON-able data; the K rule's inputs it did not use are left out."""
        out = asdict(self)
        out["k_detail"] = {k: v for k, v in out["k_detail"].items() if v is not None}
        return out
