"""What checking the store answers: the catalog and the vector store compared.

The answer of :meth:`api.service.jobs.JobRunner.check_store` (``GET /v1/check``,
``overstory doctor --json``).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CheckPublic(BaseModel):
    """SQLite and the vector store compared (``overstory doctor --json``)."""

    model_config = ConfigDict(extra="allow")

    consistent: bool
    vectors_expected: int
    vectors_stored: int
    n_missing: int
    n_orphans: int
    missing: list[str]
    orphans: list[str]
    kept_for_retry: int = Field(
        0,
        description="Vectors of an interrupted build kept for its retry (not orphans): they go "
        "once a newer build of that document is published.",
    )
