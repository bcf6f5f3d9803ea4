"""Node records of the served builds, kept in memory between queries.

Every query turns a hundred-odd vector ids and node ids into node records; popular nodes come
back query after query. Records never change while their build is served, but a new build can
share a vector id with an old one (unchanged text keeps its vector), so the cache is dropped
whenever the served builds change (a new snapshot generation).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import TypeVar

from indexer.store.catalog import Catalog
from indexer.store.records import NodeRecord
from retriever import heap

V = TypeVar("V")

# A cached entry is a record with its heading tuple (and a list by vector id): about four objects.
_OBJECTS_PER_ENTRY = 4


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
            heap.kept(-_OBJECTS_PER_ENTRY * (len(self._vectors) + len(self._nodes)))
            self._vectors.clear()
            self._nodes.clear()

    def by_vector(
        self, vector_ids: Iterable[str], builds: frozenset[int], *, generation: object
    ) -> dict[str, list[NodeRecord]]:
        """Nodes of ``builds`` that use each vector id, in document order."""
        known = self._lookup(
            self._vectors,
            vector_ids,
            lambda ids: _every_vector(ids, self.catalog.nodes.records_by_vector(ids)),
            generation=generation,
        )
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
        known = self._lookup(
            self._nodes,
            node_ids,
            lambda ids: _all_keys(ids, self.catalog.nodes.records_by_id(ids)),
            generation=generation,
        )
        return {i: n for i, n in known.items() if n is not None and n.build_id in builds}

    def _lookup(
        self,
        cache: OrderedDict[str, V],
        keys: Iterable[str],
        fetch: Callable[[list[str]], dict[str, V]],
        *,
        generation: object,
    ) -> dict[str, V]:
        """Cached values of ``keys``, the missing ones fetched (and kept, unless a newer
        generation was served meanwhile: what was read before it may miss its nodes)."""
        ids = list(dict.fromkeys(keys))
        with self._lock:
            self._current(generation)
            known = {k: cache[k] for k in ids if k in cache}
        missing = [k for k in ids if k not in known]
        if missing:
            fresh = fetch(missing)
            with self._lock:
                if self._generation == generation:
                    size = len(cache)
                    cache.update(fresh)
                    while len(cache) > self.max_entries:
                        cache.popitem(last=False)
                    heap.kept(_OBJECTS_PER_ENTRY * (len(cache) - size))
            known.update(fresh)
        return known


def _all_keys(ids: list[str], found: dict[str, NodeRecord]) -> dict[str, NodeRecord | None]:
    """Every id with its record, None for one that does not exist (remembered as such)."""
    return {i: found.get(i) for i in ids}


def _every_vector(
    ids: list[str], found: dict[str, list[NodeRecord]]
) -> dict[str, list[NodeRecord]]:
    """Every vector id with its nodes, an empty list for one no node uses."""
    return {v: found.get(v, []) for v in ids}
