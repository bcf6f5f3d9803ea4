"""Node records of the served builds, kept in memory between queries.

Every query turns a hundred-odd vector ids and node ids into node records; popular nodes come
back query after query. Records never change while their build is served, but a new build can
share a vector id with an old one (unchanged text keeps its vector), so the cache is dropped
whenever the served builds change (a new snapshot generation).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable

from indexer.store.catalog import Catalog
from indexer.store.records import NodeRecord


class RecordCache:
    """Records by vector id and by node id, for one generation of served builds."""

    def __init__(self, catalog: Catalog, *, max_entries: int = 50_000) -> None:
        self.catalog = catalog
        self.max_entries = max_entries
        self._generation: object = None
        self._vectors: OrderedDict[str, list[NodeRecord]] = OrderedDict()
        self._nodes: OrderedDict[str, NodeRecord | None] = OrderedDict()
        self._lock = threading.Lock()

    def _current(self, generation: object) -> None:
        """Serve ``generation``, dropping what was cached for another one (call locked)."""
        if generation != self._generation:
            self._generation = generation
            self._vectors.clear()
            self._nodes.clear()

    def by_vector(
        self, vector_ids: Iterable[str], builds: frozenset[int], *, generation: object
    ) -> dict[str, list[NodeRecord]]:
        """Nodes of ``builds`` that use each vector id, in document order."""
        ids = list(dict.fromkeys(vector_ids))
        with self._lock:
            self._current(generation)
            known = {v: self._vectors[v] for v in ids if v in self._vectors}
        missing = [v for v in ids if v not in known]
        if missing:
            found = self.catalog.nodes.records_by_vector(missing)
            fresh = {v: found.get(v, []) for v in missing}
            with self._lock:
                # Read before a newer generation was served: not kept (it may miss its nodes).
                if self._generation == generation:
                    self._vectors.update(fresh)
                    while len(self._vectors) > self.max_entries:
                        self._vectors.popitem(last=False)
            known.update(fresh)
        out: dict[str, list[NodeRecord]] = {}
        for v, nodes in known.items():
            mine = [n for n in nodes if n.build_id in builds]
            if mine:
                out[v] = mine
        return out

    def by_id(
        self, node_ids: Iterable[str], builds: frozenset[int], *, generation: object
    ) -> dict[str, NodeRecord]:
        """Nodes by id, restricted to ``builds``."""
        ids = list(dict.fromkeys(node_ids))
        with self._lock:
            self._current(generation)
            known = {i: self._nodes[i] for i in ids if i in self._nodes}
        missing = [i for i in ids if i not in known]
        if missing:
            found = self.catalog.nodes.records_by_id(missing)
            fresh = {i: found.get(i) for i in missing}
            with self._lock:
                if self._generation == generation:
                    self._nodes.update(fresh)
                    while len(self._nodes) > self.max_entries:
                        self._nodes.popitem(last=False)
            known.update(fresh)
        return {i: n for i, n in known.items() if n is not None and n.build_id in builds}
