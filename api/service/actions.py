"""Every write over HTTP is recorded in the audit log with the key that made it.

Reviews write their own entries (``api.service.review``); uploads, retries, deletions and key
changes are recorded here. The ``actor`` of an entry is the acting key's id (``local`` with
auth off); its ``detail`` repeats it as ``key_id`` with the key's name, like a review's.
"""

from __future__ import annotations

from typing import Any

from indexer.store.catalog import Catalog
from indexer.store.keys import ApiKey


def record_write(
    catalog: Catalog, principal: ApiKey, action: str, *, doc_id: str = "", **detail: Any
) -> None:
    """Append ``action`` (``document.upload``, ``key.revoke``, …) by ``principal`` to the log."""
    catalog.reviews.log(
        actor=principal.key_id,
        action=action,
        doc_id=doc_id,
        detail={"key_id": principal.key_id, "key_name": principal.name, **detail},
    )
