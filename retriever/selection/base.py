"""Query-free selection: the request, the result and the interface every method implements.

A method does two things: it partitions the passage vectors into exactly K clusters, and it scores
the members of one cluster (how good a representative each is). Everything else — loading the
stored vectors, choosing K, picking diverse representatives, labels and provenance — is shared
(``retriever.selection.select``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import numpy as np

METHODS = ("centroid", "rank", "balanced")
K_RULES = ("request", "budget", "elbow")


@dataclass(frozen=True)
class SelectionRequest:
    """What the caller asks for; ``None`` means "use the default" (settings or a K rule).

    Attributes:
        k: Number of clusters (outputs) wanted. When absent, K comes from ``budget_tokens``,
            else from the elbow of the k-means inertia curve.
        documents: Restrict to these ``doc_id``s (served revisions only).
        under: Restrict to the passages below this node id (a chapter, section, cluster).
        per_cluster: Representatives per cluster (diverse, by MMR).
        method: ``centroid``, ``rank`` or ``balanced``; default from settings.
        budget_tokens: Context budget; K = budget ÷ (mean passage tokens × per_cluster).
        seed: Random seed; default from settings.
    """

    k: int | None = None
    documents: tuple[str, ...] | None = None
    under: str | None = None
    per_cluster: int = 1
    method: str | None = None
    budget_tokens: int | None = None
    seed: int | None = None


@dataclass
class Partition:
    """Exactly K non-empty clusters: ``labels[i]`` in ``0..K-1`` and one center per cluster."""

    labels: np.ndarray
    centers: np.ndarray
    detail: dict[str, Any] = field(default_factory=dict)

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


@dataclass
class SelectionResult:
    """The whole answer of ``select``; ``to_dict`` is the JSON of the CLI and the HTTP route."""

    k: int
    k_rule: str
    method: str
    n_passages: int
    per_cluster: int
    seed: int
    scope: dict[str, Any]
    k_detail: dict[str, Any]
    method_detail: dict[str, Any]
    clusters: list[Cluster]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data."""
        return asdict(self)
