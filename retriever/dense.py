"""Dense candidates: nearest passage and summary vectors of the query.

A search is exact whenever the vectors it covers are few (``exact_limit``): over the served
vectors of every document, or of the documents a query is restricted to, loaded from the vector
store once per build and cached (a build's vectors never change). Exact search answers the same
query the same way in every process. Chroma's HNSW graph does not: the part of it rebuilt from
Chroma's log when a process opens the store differs from one process to the next, so two
processes found different tails of the same query's 160 nearest vectors (on the fixture
manuals' 508 vectors, 98.8 % and 99.4 % of the exact ones), and the fused ranking moved with them.

Beyond the limit, unrestricted queries go to Chroma's HNSW index. A restricted query does not
use a Chroma metadata filter (15x slower at 100k vectors, measured in DESIGN.md); restrictions
too large to search exactly fall back to an over-fetching Chroma query filtered afterwards.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from indexer.ingest import vector_id
from indexer.store.catalog import Catalog
from indexer.store.vectors import VectorStore
from retriever.snapshot import Snapshot

_KIND_CODE = {"passage": "p", "summary": "s"}


class DenseSearcher:
    """Nearest vectors by cosine similarity, optionally restricted to builds and kinds."""

    def __init__(
        self,
        vectors: VectorStore,
        catalog: Catalog,
        *,
        exact_limit: int = 20_000,
        cache_vectors: int = 200_000,
        cache_ids: int = 20_000,
    ) -> None:
        self.vectors = vectors
        self.catalog = catalog
        self.exact_limit = exact_limit
        self.cache_vectors = cache_vectors
        self._cache: OrderedDict[int, tuple[list[str], np.ndarray]] = OrderedDict()
        self._by_id: OrderedDict[str, np.ndarray] = OrderedDict()
        self.cache_ids = cache_ids
        self._cached = 0
        self._lock = threading.Lock()
        self._small: tuple[object, bool] | None = None
        self._matrix: tuple[tuple[tuple[int, ...], frozenset[str]], list[str], np.ndarray] | None
        self._matrix = None

    def search(
        self,
        query: np.ndarray,
        *,
        n: int,
        snapshot: Snapshot,
        doc_ids: list[str] | None,
        kinds: frozenset[str],
    ) -> list[tuple[str, float]]:
        """The ``n`` best ``(vector_id, cosine)`` pairs, best first."""
        codes = {_KIND_CODE[k] for k in kinds}
        if doc_ids is None and self._served_few(snapshot):
            return self._exact(query, sorted(snapshot.builds()), codes, n)
        if doc_ids is not None:
            builds = [snapshot.documents[d].build_id for d in doc_ids if d in snapshot.documents]
            sizes = self._sizes(builds)
            if sum(sizes.values()) <= self.exact_limit:
                return self._exact(query, builds, codes, n)
            prefixes = {vector_id(d, "x", "")[:16] for d in doc_ids}
        else:
            prefixes = None
        over = 1 if len(codes) == 2 and prefixes is None else 4
        hits = self.vectors.query(query, n * over)
        out = [
            (vid, sim)
            for vid, sim in hits
            if _kind(vid) in codes and (prefixes is None or vid[:16] in prefixes)
        ]
        return out[:n]

    def _served_few(self, snapshot: Snapshot) -> bool:
        """Whether the served builds hold at most ``exact_limit`` vectors (counted once per
        generation, and only until the count passes the limit)."""
        small = self._small
        if small is not None and small[0] == snapshot.generation:
            return small[1]
        total = 0
        for b in sorted(snapshot.builds()):
            total += self._sizes([b])[b]
            if total > self.exact_limit:
                break
        self._small = (snapshot.generation, total <= self.exact_limit)
        return self._small[1]

    def _sizes(self, builds: list[int]) -> dict[int, int]:
        out: dict[int, int] = {}
        missing = []
        for b in builds:
            if b in self._cache:
                out[b] = len(self._cache[b][0])
            else:
                missing.append(b)
        for b in missing:
            out[b] = self.catalog.nodes.vector_count(b)
        return out

    def _exact(
        self, query: np.ndarray, builds: list[int], codes: set[str], n: int
    ) -> list[tuple[str, float]]:
        ids, mat = self._vectors_of_builds(builds, frozenset(codes))
        if not ids:
            return []
        sims = mat @ np.asarray(query, dtype=np.float32)
        n = min(n, len(ids))
        top = np.argpartition(-sims, n - 1)[:n]
        ranked = sorted(top.tolist(), key=lambda i: (-sims[i], ids[i]))
        return [(ids[i], float(sims[i])) for i in ranked]

    def _vectors_of_builds(
        self, builds: list[int], codes: frozenset[str]
    ) -> tuple[list[str], np.ndarray]:
        """The vectors of some builds' nodes of some kinds, as one matrix (the last one asked
        for is kept: consecutive queries mostly search the same builds)."""
        key = (tuple(builds), codes)
        kept = self._matrix
        if kept is not None and kept[0] == key:
            return kept[1], kept[2]
        ids: list[str] = []
        mats = []
        for b in builds:
            bid, mat = self._build_vectors(b)
            keep = [i for i, v in enumerate(bid) if _kind(v) in codes]
            if keep:
                ids.extend(bid[i] for i in keep)
                mats.append(mat[keep])
        matrix = np.concatenate(mats) if mats else np.zeros((0, 1), dtype=np.float32)
        self._matrix = (key, ids, matrix)
        return ids, matrix

    def _build_vectors(self, build_id: int) -> tuple[list[str], np.ndarray]:
        with self._lock:
            if build_id in self._cache:
                self._cache.move_to_end(build_id)
                return self._cache[build_id]
        wanted = sorted(self.catalog.vector_ids_of_build(build_id))
        got = self.vectors.get(wanted)
        ids = [v for v in wanted if v in got]
        mat = (
            np.stack([got[v] for v in ids]).astype(np.float32)
            if ids
            else np.zeros((0, 1), dtype=np.float32)
        )
        with self._lock:
            self._cache[build_id] = (ids, mat)
            self._cached += len(ids)
            while self._cached > self.cache_vectors and len(self._cache) > 1:
                _, (old, _) = self._cache.popitem(last=False)
                self._cached -= len(old)
        return ids, mat

    def vectors_of(self, vector_ids: list[str]) -> dict[str, np.ndarray]:
        """Stored vectors by id (for scoring candidates that only the lexical index found, and
        the summaries above the best passages). Vector ids are content addressed, so a vector
        read once is kept (the most recently used ``cache_ids`` of them)."""
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for vid in vector_ids:
                hit = self._by_id.get(vid)
                if hit is not None:
                    self._by_id.move_to_end(vid)
                    out[vid] = hit
        missing = [v for v in vector_ids if v not in out]
        if missing:
            found = self.vectors.get(missing)
            out.update(found)
            with self._lock:
                self._by_id.update(found)
                while len(self._by_id) > self.cache_ids:
                    self._by_id.popitem(last=False)
        return out


def _kind(vid: str) -> str:
    """The kind code inside a vector id (``<doc hash>:<p|s>:<content hash>``)."""
    return vid[17:18]


def kind_of_vector(vid: str) -> str:
    """``passage`` or ``summary``: what a vector id was embedded from."""
    return "passage" if _kind(vid) == "p" else "summary"
