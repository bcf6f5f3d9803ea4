"""The job queue's leases and the publish counter (several workers and API replicas).

- ``jobs.worker_id``, ``jobs.lease_until``, ``jobs.attempts``: which worker holds a running
  job, until when, and how many runs it has had (``indexer/store/job_queue.py``).
- ``publish_counter``: one row that a trigger on ``documents`` bumps at every change of a served
  revision (a publish or a deletion), whatever process makes it; a replica polls it to learn
  of publishes made elsewhere (``retriever/follower.py``).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

# SQLite has no ADD COLUMN IF NOT EXISTS: these are added only where missing (a catalog whose
# migration record was lost is upgraded again from the baseline, which is IF NOT EXISTS too).
_SQLITE_COLUMNS = (
    ("worker_id", "TEXT"),
    ("lease_until", "REAL"),
    ("attempts", "INTEGER NOT NULL DEFAULT 0"),
)
_SQLITE = (
    "CREATE TABLE IF NOT EXISTS publish_counter ("
    " id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL)",
    "CREATE TRIGGER IF NOT EXISTS documents_published AFTER UPDATE OF current_build ON documents"
    " BEGIN UPDATE publish_counter SET seq = seq + 1 WHERE id = 1; END",
    "CREATE TRIGGER IF NOT EXISTS documents_deleted AFTER DELETE ON documents"
    " BEGIN UPDATE publish_counter SET seq = seq + 1 WHERE id = 1; END",
)

_POSTGRES = (
    "ALTER TABLE jobs ADD COLUMN IF NOT EXISTS worker_id TEXT",
    "ALTER TABLE jobs ADD COLUMN IF NOT EXISTS lease_until DOUBLE PRECISION",
    "ALTER TABLE jobs ADD COLUMN IF NOT EXISTS attempts INTEGER NOT NULL DEFAULT 0",
    "CREATE TABLE IF NOT EXISTS publish_counter ("
    " id INTEGER PRIMARY KEY CHECK (id = 1), seq BIGINT NOT NULL)",
    "CREATE OR REPLACE FUNCTION overstory_count_publish() RETURNS trigger LANGUAGE plpgsql AS"
    " $$ BEGIN UPDATE publish_counter SET seq = seq + 1 WHERE id = 1; RETURN NULL; END $$",
    "DROP TRIGGER IF EXISTS documents_published ON documents",
    "CREATE TRIGGER documents_published AFTER UPDATE OF current_build ON documents"
    " FOR EACH ROW EXECUTE FUNCTION overstory_count_publish()",
    "DROP TRIGGER IF EXISTS documents_deleted ON documents",
    "CREATE TRIGGER documents_deleted AFTER DELETE ON documents"
    " FOR EACH ROW EXECUTE FUNCTION overstory_count_publish()",
)


def upgrade() -> None:
    """Add the lease columns, the counter and its triggers."""
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        present = {r[1] for r in bind.exec_driver_sql("PRAGMA table_info(jobs)")}
        for column, declaration in _SQLITE_COLUMNS:
            if column not in present:
                bind.exec_driver_sql(f"ALTER TABLE jobs ADD COLUMN {column} {declaration}")
    for statement in _SQLITE if bind.dialect.name == "sqlite" else _POSTGRES:
        bind.exec_driver_sql(statement)
    bind.exec_driver_sql(
        "INSERT INTO publish_counter (id, seq) VALUES (1, 0) ON CONFLICT (id) DO NOTHING"
    )
    bind.exec_driver_sql("CREATE INDEX IF NOT EXISTS jobs_lease ON jobs (status, lease_until)")


def downgrade() -> None:
    """Downgrades are not supported: restore a backup of the catalog instead."""
    raise NotImplementedError("restore a backup of the catalog to go back")
