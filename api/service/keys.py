"""API keys with roles, stored hashed in the catalog.

A key looks like ``ovs_<key_id>_<secret>``; only its sha256 is stored, so a key is shown once,
when it is created. Roles are cumulative, each one allowing what the previous ones allow:

    reader   query, select, browse
    editor   + ingest, delete, jobs
    auditor  + review summaries
    admin    + manage keys
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import time
from pathlib import Path
from typing import cast

from indexer.errors import (
    AuthError,
    BadInputError,
    CatalogUnavailableError,
    ForbiddenError,
    NotFoundError,
)
from indexer.store.catalog import Catalog
from indexer.store.keys import ROLES, ApiKey, Role

__all__ = [
    "BOOTSTRAP_KEY_FILE",
    "KEY_ID_PATTERN",
    "KEY_PREFIX",
    "ROLES",
    "ApiKey",
    "KeyStore",
    "Role",
    "authorize",
    "role_allows",
    "write_secret",
]

KEY_PREFIX = "ovs_"
KEY_ID_PATTERN = "^[0-9a-f]{8}$"
BOOTSTRAP_KEY_FILE = "bootstrap-admin.key"
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


class KeyStore:
    """Create, list, revoke and check API keys of one store."""

    def __init__(self, catalog: Catalog) -> None:
        self.table = catalog.keys
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
        self.table.insert(record, key_hash=hash_key(key))
        return key, record

    def list_keys(self) -> list[ApiKey]:
        """Every key, revoked ones included, oldest first."""
        return self.table.all()

    def count(self) -> int:
        """Number of keys ever created (revoked ones included)."""
        return self.table.count()

    def get(self, key_id: str) -> ApiKey:
        """One key by id, or NotFoundError."""
        record = self.table.get(key_id)
        if record is None:
            raise NotFoundError(f"no API key {key_id!r}", detail={"key_id": key_id})
        return record

    def revoke(self, key_id: str) -> ApiKey:
        """Revoke a key by its id (never the key itself); revoking twice is harmless.

        Raises:
            NotFoundError: No such key, or a value that is not a key id (a key's secret is
                neither looked up nor repeated).
        """
        if not re.fullmatch(KEY_ID_PATTERN, key_id):
            raise NotFoundError(
                "not an API key id: revoke a key by its id (8 hex digits, as listed by "
                "'overstory keys list' or GET /v1/keys), never by the key itself"
            )
        self.get(key_id)
        self.table.revoke(key_id, at=time.time())
        return self.get(key_id)

    def authenticate(self, key: str) -> ApiKey:
        """The active key matching ``key``.

        Raises:
            AuthError: Unknown or revoked key.
        """
        record = self.table.by_hash(hash_key(key))
        if record is None:
            raise AuthError("invalid API key")
        if not record.active:
            raise AuthError("this API key was revoked", detail={"key_id": record.key_id})
        self._touch(record.key_id)
        return record

    def _touch(self, key_id: str) -> None:
        now = time.time()
        if now - self._touched.get(key_id, 0.0) < _TOUCH_EVERY:
            return
        self._touched[key_id] = now
        # best effort: a busy store must not refuse a valid key
        with contextlib.suppress(CatalogUnavailableError):
            self.table.touch(key_id, at=now)


def write_secret(path: Path, text: str) -> None:
    """Write ``text`` to a new file that only this user can read (mode 0600).

    An existing file is replaced (unlinked first: its mode may be wider).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def authorize(key: ApiKey, need: str) -> None:
    """ForbiddenError unless ``key``'s role includes ``need``."""
    if not role_allows(key.role, need):
        raise ForbiddenError(
            f"this API key has role {key.role!r}; this operation needs {need!r}",
            detail={"role": key.role, "required": need},
        )
