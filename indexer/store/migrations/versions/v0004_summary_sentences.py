"""Sourced summary sentences.

- ``summaries.sentences``: the summary as JSON sentences, each with the source spans it rests on,
  relative to the summarized node's start (``indexer/sourced.py``).
- ``nodes.sentences``: the same resolved for one build: absolute character ranges of the
  document's text, with pages.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_COLUMNS = (("summaries", "sentences"), ("nodes", "sentences"))


def upgrade() -> None:
    """Add the two columns (NULL for summaries written before: they have no sentences)."""
    bind = op.get_bind()
    for table, column in _COLUMNS:
        if bind.dialect.name == "sqlite":
            present = {r[1] for r in bind.exec_driver_sql(f"PRAGMA table_info({table})")}
            if column not in present:
                bind.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")
        else:
            bind.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} TEXT")


def downgrade() -> None:
    """Downgrades are not supported: restore a backup of the catalog instead."""
    raise NotImplementedError("restore a backup of the catalog to go back")
