"""Every write is recorded in the audit log with who made it.

Reviews write their own entries (``api.service.review``); uploads, ingests, retries, deletions
and key changes are recorded here. Over HTTP the ``actor`` of an entry is the acting key's id
(``local`` with auth off), repeated in ``detail`` as ``key_id`` with the key's name, like a
review's; from the CLI it is ``cli:<the operating-system user>``.
"""

from __future__ import annotations

import getpass
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


def record_cli_write(catalog: Catalog, action: str, *, doc_id: str = "", **detail: Any) -> None:
    """Append ``action`` done through the CLI, by the operating-system user running it."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        user = "unknown"
    catalog.reviews.log(actor=f"cli:{user}", action=action, doc_id=doc_id, detail=detail)
