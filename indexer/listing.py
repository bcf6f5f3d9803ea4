"""The served documents as the CLI and the service list them (catalog only: no models)."""

from __future__ import annotations

import json
from typing import Any

from indexer.store.catalog import Catalog


def served_documents(catalog: Catalog) -> list[dict[str, Any]]:
    """The served documents with their revision and counts."""
    out = []
    for row in catalog.documents():
        stored = json.loads(row["report"] or "{}")
        out.append(
            {
                "doc_id": row["doc_id"],
                "source": row["source"],
                "revision": row["revision"],
                "format": row["format"],
                "summarizer": row["summarizer"],
                "root_node": row["root_node"],
                "indexed_at": row["completed_at"],
                **stored,
            }
        )
    return out
