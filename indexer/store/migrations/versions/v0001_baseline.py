"""The baseline: the catalog's tables as they were before versioned migrations.

On SQLite every statement is ``IF NOT EXISTS``, so a store made before migrations existed is
upgraded in place (its rows untouched) and only gains the ``alembic_version`` table.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlite3
from importlib import resources

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def sqlite_statements(script: str) -> list[str]:
    """The statements of a SQLite script (a trigger's body holds ``;`` of its own)."""
    out: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        if not pending and (not line.strip() or line.lstrip().startswith("--")):
            continue
        pending += line
        if sqlite3.complete_statement(pending):
            out.append(pending.strip())
            pending = ""
    return out


def upgrade() -> None:
    """Create the tables, indexes and triggers of the dialect."""
    bind = op.get_bind()
    folder = resources.files("indexer.store.migrations")
    if bind.dialect.name == "sqlite":
        for statement in sqlite_statements(folder.joinpath("sqlite_0001.sql").read_text()):
            bind.exec_driver_sql(statement)
    else:
        # psycopg runs a script of several statements when it is given no parameters
        bind.connection.driver_connection.execute(  # type: ignore[union-attr]
            folder.joinpath("postgres_0001.sql").read_text()
        )


def downgrade() -> None:
    """Downgrades are not supported: restore a backup of the catalog instead."""
    raise NotImplementedError("restore a backup of the catalog to go back")
