"""Opening the vector store, and rebuilding it from SQLite when a crash damaged it.

The embedded Chroma store is derived data: a kill while it writes its files can leave them
unreadable (measured: 2 kills in 12 during embedding truncated its segment metadata), and
Chroma cannot recover them. So the store is probed when it is opened; a damaged one is moved
aside (kept for inspection, its path logged) and a new one filled from ``vector_copies``, the
vectors SQLite keeps of everything the served builds reference. Only vectors SQLite does not
hold (a store written before it kept them) are encoded again, by the caller.
"""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from indexer.errors import BackendError
from indexer.settings import Settings
from indexer.store.catalog import Catalog
from indexer.store.vectors import VectorStore, make_vector_store
from indexer.store.vectors.recorded import RecordedVectorStore

log = logging.getLogger(__name__)


@dataclass
class Opened:
    """The vector store, and what was done to open it."""

    store: RecordedVectorStore
    rebuilt_from: Path | None = None  # where the damaged store was moved
    restored: int = 0  # vectors copied back from SQLite
    missing: list[str] = field(default_factory=list)  # served vectors SQLite lacks


def probe(store: VectorStore) -> None:
    """Read the store the way queries and ingest will (raises BackendError when damaged)."""
    if store.count() > 0:
        unit = np.zeros(384, dtype=np.float32)
        unit[0] = 1.0
        store.query(unit, 1)


def open_vectors(
    settings: Settings, catalog: Catalog, lock: Callable[[], AbstractContextManager[None]]
) -> Opened:
    """The store's vectors, rebuilt from SQLite first if the embedded store is damaged.

    Raises:
        BackendError: A Chroma server is unreachable or damaged (it is not ours to rebuild).
    """
    try:
        inner = make_vector_store(settings)
        probe(inner)
        return Opened(RecordedVectorStore(inner, catalog.vector_copies))
    except BackendError as exc:
        if settings.chroma_url:
            raise
        damage = exc
    with lock():  # one process rebuilds; the others wait and then find it sound
        try:
            inner = make_vector_store(settings)
            probe(inner)
            return Opened(RecordedVectorStore(inner, catalog.vector_copies))
        except BackendError:
            pass
        return _rebuild(settings, catalog, damage)


def _rebuild(settings: Settings, catalog: Catalog, damage: Exception) -> Opened:
    folder = settings.store / "chroma"
    aside = settings.store / f"chroma.damaged-{time.strftime('%Y%m%d-%H%M%S')}"
    log.warning(
        "the vector store at %s cannot be read (%s); moving it to %s and rebuilding it from "
        "the vectors SQLite keeps",
        folder,
        damage,
        aside,
    )
    _forget_open_clients()
    if folder.exists():
        shutil.move(str(folder), str(aside))
    inner = make_vector_store(settings)
    store = RecordedVectorStore(inner, catalog.vector_copies)
    wanted = catalog.served_vector_ids()
    restored = len(restore(inner, catalog, wanted))
    missing = sorted(wanted - inner.existing(sorted(wanted)))
    log.warning(
        "vector store rebuilt: %d vectors restored, %d to encode again", restored, len(missing)
    )
    return Opened(store, rebuilt_from=aside, restored=restored, missing=missing)


def restore(inner: VectorStore, catalog: Catalog, wanted: set[str]) -> set[str]:
    """Copy the vectors SQLite holds among ``wanted`` into ``inner``; the ids restored."""
    done: set[str] = set()
    for ids, vectors, doc_ids, kinds in catalog.vector_copies.batches(wanted):
        inner.upsert(ids, vectors, doc_ids=doc_ids, kinds=kinds)
        done.update(ids)
    return done


def _forget_open_clients() -> None:
    # Chroma keeps one client system per path in the process; a new client at the same path
    # would reuse the damaged one.
    try:
        from chromadb.api.client import SharedSystemClient

        SharedSystemClient.clear_system_cache()
    except Exception:  # pragma: no cover - another Chroma version
        log.debug("could not clear Chroma's client cache", exc_info=True)
