"""A replica's view of the catalog, kept in step with publishes made by any process.

Several API replicas share one catalog; each keeps its own BM25 index. The follower polls the
catalog's publish counter (one row, every ``publish_poll_seconds``) and, when it moved, takes a
new :class:`~retriever.snapshot.Snapshot`, brings the BM25 index to exactly that snapshot
(only builds not indexed yet are tokenized; the others' segments are reused) and only then
makes it the snapshot queries take. Until the refresh is done, queries keep the previous
snapshot, whose BM25 state stays loaded, so a query never mixes revisions across the dense
and the lexical index. A publish made by this process is followed at once (publish hook).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from indexer.store.catalog import Catalog
from indexer.store.publish_counter import publish_seq
from retriever.lexical import LexicalIndex
from retriever.snapshot import Snapshot, take_snapshot

log = logging.getLogger(__name__)


class PublishFollower:
    """The snapshot a replica serves, moved forward only once its BM25 index is ready."""

    def __init__(self, catalog: Catalog, lexical: LexicalIndex, *, interval: float) -> None:
        self.catalog = catalog
        self.lexical = lexical
        self.interval = interval
        self.snapshot: Snapshot | None = None
        self._seq: int | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def following(self) -> bool:
        """Whether queries take the followed snapshot (between :meth:`start` and :meth:`stop`)."""
        return self._thread is not None and self.snapshot is not None

    def start(self) -> None:
        """Catch up now, then poll the publish counter in a background thread."""
        self.catch_up()
        self._stop.clear()
        self._thread = threading.Thread(target=self._poll, name="overstory-follower", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop polling; queries go back to reading the catalog's served builds directly."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)
        self._thread = None

    def on_publish(self, doc_ids: Sequence[str]) -> None:
        """A publish hook (:data:`indexer.index.PublishHook`): follow this process's publish
        now, so that the job's end and the new revision's visibility come together."""
        if self._thread is None:
            self.lexical.refresh()
        else:
            self.catch_up()

    def catch_up(self) -> bool:
        """Follow the catalog if the publish counter moved; True when the snapshot changed."""
        with self._lock:
            seq = publish_seq(self.catalog)
            if seq == self._seq and self.snapshot is not None:
                return False
            snapshot = take_snapshot(self.catalog)
            self.lexical.refresh(snapshot)
            changed = self.snapshot is None or snapshot.generation != self.snapshot.generation
            self.snapshot, self._seq = snapshot, seq
            return changed

    def _poll(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.catch_up()
            except Exception:  # the catalog may be briefly unavailable: keep the last snapshot
                log.exception("following the catalog's publishes failed")
