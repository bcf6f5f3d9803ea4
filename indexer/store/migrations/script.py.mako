"""${message}

Revision ID: ${up_revision}
Revises: ${down_revision | comma,n}
"""

from __future__ import annotations

from alembic import op

revision = ${repr(up_revision)}
down_revision = ${repr(down_revision)}
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision (raw SQL per dialect: ``op.get_bind().dialect.name``)."""
    ${upgrades if upgrades else "pass"}


def downgrade() -> None:
    """Downgrades are not supported: restore a backup of the catalog instead."""
    raise NotImplementedError("restore a backup of the catalog to go back")
