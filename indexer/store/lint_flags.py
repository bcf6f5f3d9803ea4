"""The ``lint_flags`` table: lint flags of stored summaries, cached by summary key.

``inputs`` is a hash of what, beyond the summary's cache key, decides what the summary is checked
against (the expert corrections among the node's children); a row with other inputs is stale.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from indexer.store.db import Database


@dataclass(frozen=True, kw_only=True)
class CachedFlags:
    """The lint flags of one summary and the inputs they were computed for."""

    summary_key: str
    inputs: str
    flags: list[dict[str, Any]]


class LintFlagTable:
    """Cached lint flags."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def get(self, summary_keys: Iterable[str]) -> dict[str, CachedFlags]:
        """The cached flags of these summaries (missing keys are absent)."""
        rows = self._db.rows_in(
            "SELECT summary_key, inputs, flags FROM lint_flags WHERE summary_key IN ({marks})",
            summary_keys,
        )
        return {
            r["summary_key"]: CachedFlags(
                summary_key=r["summary_key"], inputs=r["inputs"], flags=json.loads(r["flags"])
            )
            for r in rows
        }

    def put(self, entries: Iterable[CachedFlags]) -> None:
        """Store computed flags (replacing older ones of the same summaries)."""
        now = time.time()
        rows = [(e.summary_key, e.inputs, json.dumps(e.flags), now) for e in entries]
        if not rows:
            return
        with self._db.write() as db:
            db.executemany(
                "INSERT INTO lint_flags (summary_key, inputs, flags, created_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (summary_key) DO UPDATE SET"
                " inputs = excluded.inputs, flags = excluded.flags,"
                " created_at = excluded.created_at",
                rows,
            )
