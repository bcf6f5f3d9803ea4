"""The catalog's publish counter: one row that every change of a served revision bumps.

The bump is a trigger on ``documents`` (``schema.sql``), so every writer counts, whatever the
process; a replica compares one integer to learn that another process published.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from indexer.store.db import Database


def publish_seq(database: Database) -> int:
    """The number of served-revision changes (publishes and deletions) so far."""
    row = database.db.execute("SELECT seq FROM publish_counter WHERE id = 1").fetchone()
    return 0 if row is None else int(row[0])
