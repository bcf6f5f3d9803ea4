"""The ``api_keys`` table: API keys as stored (only the sha256 of a key, never the key)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

from indexer.store.backends import Row

if TYPE_CHECKING:
    from indexer.store.db import Database

Role = Literal["reader", "editor", "auditor", "admin"]
ROLES: tuple[Role, ...] = ("reader", "editor", "auditor", "admin")


@dataclass(frozen=True, kw_only=True)
class ApiKey:
    """A stored key without its secret."""

    key_id: str
    role: Role
    name: str
    created_at: float
    last_used_at: float | None = None
    revoked_at: float | None = None

    @property
    def active(self) -> bool:
        """Not revoked."""
        return self.revoked_at is None

    def to_json(self) -> dict[str, Any]:
        """The key's public fields."""
        return {**asdict(self), "active": self.active}


def _key(row: Row) -> ApiKey:
    return ApiKey(
        key_id=row["key_id"],
        role=cast(Role, row["role"]),
        name=row["name"],
        created_at=row["created_at"],
        last_used_at=row["last_used_at"],
        revoked_at=row["revoked_at"],
    )


class KeyTable:
    """Rows of ``api_keys``."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def insert(self, record: ApiKey, *, key_hash: str) -> None:
        """Store a new key's record and hash."""
        with self._db.write() as db:
            db.execute(
                "INSERT INTO api_keys (key_id, key_hash, role, name, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (record.key_id, key_hash, record.role, record.name, record.created_at),
            )

    def all(self) -> list[ApiKey]:
        """Every key, revoked ones included, oldest first."""
        rows = self._db.db.execute("SELECT * FROM api_keys ORDER BY created_at, key_id")
        return [_key(r) for r in rows]

    def count(self) -> int:
        """Number of keys ever created (revoked ones included)."""
        return int(self._db.db.execute("SELECT COUNT(*) FROM api_keys").fetchone()[0])

    def get(self, key_id: str) -> ApiKey | None:
        """One key by id, or None."""
        row = self._db.db.execute("SELECT * FROM api_keys WHERE key_id = ?", (key_id,)).fetchone()
        return _key(row) if row is not None else None

    def by_hash(self, key_hash: str) -> ApiKey | None:
        """The key whose secret hashes to ``key_hash``, or None."""
        row = self._db.db.execute(
            "SELECT * FROM api_keys WHERE key_hash = ?", (key_hash,)
        ).fetchone()
        return _key(row) if row is not None else None

    def revoke(self, key_id: str, *, at: float) -> None:
        """Mark a key revoked (a key revoked already keeps its first time)."""
        with self._db.write() as db:
            db.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL",
                (at, key_id),
            )

    def touch(self, key_id: str, *, at: float) -> None:
        """Record when a key was last used."""
        with self._db.write() as db:
            db.execute("UPDATE api_keys SET last_used_at = ? WHERE key_id = ?", (at, key_id))
