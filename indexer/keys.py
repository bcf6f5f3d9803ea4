"""API keys with roles, stored hashed in the catalog.

A key looks like ``ovs_<key_id>_<secret>``; only its sha256 is stored, so a key is shown once,
when it is created. Roles are cumulative, each one allowing what the previous ones allow:

    reader   query, select, browse
    editor   + ingest, delete, jobs
    auditor  + review summaries
    admin    + manage keys
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import time
from dataclasses import asdict, dataclass
from typing import Any, Literal, cast

from indexer.errors import AuthError, BadInputError, ForbiddenError, NotFoundError
from indexer.store.catalog import Catalog

Role = Literal["reader", "editor", "auditor", "admin"]
ROLES: tuple[Role, ...] = ("reader", "editor", "auditor", "admin")
KEY_PREFIX = "ovs_"
# Writing ``last_used_at`` on every request would make each query a write; once a minute is
# enough to tell which keys are in use.
_TOUCH_EVERY = 60.0


def role_allows(have: str, need: str) -> bool:
    """Whether a key of role ``have`` may do what role ``need`` may do."""
    return ROLES.index(cast(Role, have)) >= ROLES.index(cast(Role, need))


def check_role(role: str) -> Role:
    """``role`` if it is one of :data:`ROLES`, else BadInputError."""
    if role not in ROLES:
        raise BadInputError(f"unknown role {role!r} (roles: {', '.join(ROLES)})")
    return cast(Role, role)


def hash_key(key: str) -> str:
    """The stored form of a key."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
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


def _from_row(row: sqlite3.Row) -> ApiKey:
    return ApiKey(
        key_id=row["key_id"],
        role=cast(Role, row["role"]),
        name=row["name"],
        created_at=row["created_at"],
        last_used_at=row["last_used_at"],
        revoked_at=row["revoked_at"],
    )


class KeyStore:
    """Create, list, revoke and check API keys of one store."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._touched: dict[str, float] = {}

    def create(self, *, role: str, name: str | None = None) -> tuple[str, ApiKey]:
        """A new key and its record; the key itself is not stored and cannot be shown again.

        Raises:
            BadInputError: Unknown role or an unusable name.
        """
        checked = check_role(role)
        key_id = secrets.token_hex(4)
        key = f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
        name = (name if name is not None else f"{checked}-{key_id}").strip()
        if not name or len(name) > 100 or any(ord(ch) < 32 for ch in name):
            raise BadInputError("a key name must be 1 to 100 printable characters")
        record = ApiKey(key_id=key_id, role=checked, name=name, created_at=time.time())
        with self.catalog.write() as db:
            db.execute(
                "INSERT INTO api_keys (key_id, key_hash, role, name, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (key_id, hash_key(key), checked, name, record.created_at),
            )
        return key, record

    def list_keys(self) -> list[ApiKey]:
        """Every key, revoked ones included, oldest first."""
        rows = self.catalog.db.execute("SELECT * FROM api_keys ORDER BY created_at, key_id")
        return [_from_row(r) for r in rows]

    def count(self) -> int:
        """Number of keys ever created (revoked ones included)."""
        return int(self.catalog.db.execute("SELECT COUNT(*) FROM api_keys").fetchone()[0])

    def get(self, key_id: str) -> ApiKey:
        """One key by id, or NotFoundError."""
        row = self.catalog.db.execute(
            "SELECT * FROM api_keys WHERE key_id = ?", (key_id,)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no API key {key_id!r}", detail={"key_id": key_id})
        return _from_row(row)

    def revoke(self, key_id: str) -> ApiKey:
        """Revoke a key (by its id, or the key itself); revoking twice is harmless.

        Raises:
            NotFoundError: No such key.
        """
        if key_id.startswith(KEY_PREFIX):
            row = self.catalog.db.execute(
                "SELECT key_id FROM api_keys WHERE key_hash = ?", (hash_key(key_id),)
            ).fetchone()
            if row is None:
                raise NotFoundError("no such API key")
            key_id = row["key_id"]
        self.get(key_id)
        with self.catalog.write() as db:
            db.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL",
                (time.time(), key_id),
            )
        return self.get(key_id)

    def authenticate(self, key: str) -> ApiKey:
        """The active key matching ``key``.

        Raises:
            AuthError: Unknown or revoked key.
        """
        row = self.catalog.db.execute(
            "SELECT * FROM api_keys WHERE key_hash = ?", (hash_key(key),)
        ).fetchone()
        if row is None:
            raise AuthError("invalid API key")
        record = _from_row(row)
        if not record.active:
            raise AuthError("this API key was revoked", detail={"key_id": record.key_id})
        self._touch(record.key_id)
        return record

    def _touch(self, key_id: str) -> None:
        now = time.time()
        if now - self._touched.get(key_id, 0.0) < _TOUCH_EVERY:
            return
        self._touched[key_id] = now
        try:
            with self.catalog.write() as db:
                db.execute("UPDATE api_keys SET last_used_at = ? WHERE key_id = ?", (now, key_id))
        except sqlite3.OperationalError:
            pass  # best effort: a busy store must not refuse a valid key


def authorize(key: ApiKey, need: str) -> None:
    """ForbiddenError unless ``key``'s role includes ``need``."""
    if not role_allows(key.role, need):
        raise ForbiddenError(
            f"this API key has role {key.role!r}; this operation needs {need!r}",
            detail={"role": key.role, "required": need},
        )
