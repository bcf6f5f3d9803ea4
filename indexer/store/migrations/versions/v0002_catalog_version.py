"""A commit counter for PostgreSQL: the data version readers compare to notice a commit.

SQLite tells it with ``PRAGMA data_version``; PostgreSQL has no such thing, so every write
transaction bumps the one row of ``catalog_version`` (which also makes writers wait for each
other, as ``BEGIN IMMEDIATE`` does on SQLite). Nothing changes on SQLite.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create and seed ``catalog_version`` on PostgreSQL."""
    if op.get_bind().dialect.name == "sqlite":
        return
    op.execute(
        "CREATE TABLE IF NOT EXISTS catalog_version ("
        " id INTEGER PRIMARY KEY CHECK (id = 1), n BIGINT NOT NULL)"
    )
    op.execute("INSERT INTO catalog_version (id, n) VALUES (1, 0) ON CONFLICT (id) DO NOTHING")


def downgrade() -> None:
    """Downgrades are not supported: restore a backup of the catalog instead."""
    raise NotImplementedError("restore a backup of the catalog to go back")
