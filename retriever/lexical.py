"""BM25 over the served passages and summaries of every document, kept on disk.

Layout under ``<store>/lexical/``::

    segments-<format>/<build_id>.npz   one build's nodes, tokenized once (a local vocabulary)
    index-<generation>/       one generation's postings (bm25s's files) + rows.npz (row → node)
    CURRENT                   name of the index folder to load

A generation is the set of served ``(doc_id, build_id)`` pairs. Re-ingesting a document makes a
new generation: only that document's build is tokenized, the others' segments are reused, and
the merged index is built in vectorized numpy (bm25s's own builder loops in Python per document
and needs minutes at 100k passages). Writers publish a folder by atomic rename, so any number of
processes (CLI, service) may refresh and read concurrently.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from indexer.hashing import hash_parts
from indexer.store.catalog import Catalog
from retriever.best_rows import best_rows
from retriever.postings import Postings
from retriever.snapshot import Snapshot, take_snapshot
from retriever.tokenize import tokenize

_STALE_INDEX_SECONDS = 120.0
# What a node's bag of words holds (see lexical_text); a new format tokenizes every build again.
_FORMAT = "2"
_SEGMENTS = f"segments-{_FORMAT}"


def lexical_text(level: str, heading_path: list[str], text: str) -> str:
    """What BM25 sees of a node: its text under its own heading and the one above.

    A passage often leaves its subject to its heading (an FAQ's answer under its question,
    "Append the keyword nts to your server lines" under "NTS Client Configuration"), so it is
    found by the headings of its section, never by the document's title, which every passage
    of the document shares. A summary is found by its own headings, the title among them when
    it is a chapter's or the document's."""
    if level == "passage":
        return " ".join([*heading_path[1:][-2:], text])
    return " ".join([*heading_path[-2:], text])


@dataclass
class _Segment:
    """One build's nodes as bags of words: ``(token, count)`` pairs per node, local vocabulary."""

    node_ids: np.ndarray  # str
    summary: np.ndarray  # bool
    lengths: np.ndarray  # int32, tokens per node
    vocab: np.ndarray  # str, local vocabulary
    tokens: np.ndarray  # int32, local token ids, distinct within a node, nodes concatenated
    counts: np.ndarray  # int32, occurrences of each token in its node
    pairs: np.ndarray  # int64, distinct tokens per node


_SEGMENT_FIELDS = ("node_ids", "summary", "lengths", "vocab", "tokens", "counts", "pairs")


@dataclass
class _State:
    """One loaded generation (immutable once built; swapped as a whole)."""

    generation: tuple[tuple[str, int], ...]
    bm25: Postings
    node_ids: np.ndarray
    builds: np.ndarray
    summary: np.ndarray
    masks: dict[tuple[Any, ...], np.ndarray | None] = field(default_factory=dict)


class LexicalIndex:
    """BM25 candidates for a query, restricted to a snapshot's builds."""

    def __init__(self, folder: Path, catalog: Catalog) -> None:
        self.folder = folder
        self.catalog = catalog
        self._state: _State | None = None
        # The state before the last refresh, for queries still on the previous snapshot.
        self._previous: _State | None = None
        self._lock = threading.Lock()
        self._segments: dict[int, _Segment] = {}
        self._remapped: dict[int, np.ndarray] = {}
        self._vocab: dict[str, int] = {}
        self._lock_segments = threading.Lock()

    # reading ------------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        n: int,
        snapshot: Snapshot,
        builds: frozenset[int],
        kinds: frozenset[str],
    ) -> list[tuple[str, float]]:
        """The ``n`` best ``(node_id, bm25 score)`` among the given builds and kinds, best first."""
        scored = self._scores(query, snapshot, n)
        if scored is None:
            return []
        state, scores = scored
        return _listed(state, *best_rows(scores, {"": self._mask(state, builds, kinds)}, n)[""])

    def search_kinds(
        self,
        query: str,
        *,
        n: int,
        snapshot: Snapshot,
        builds: frozenset[int],
        kinds: frozenset[str],
    ) -> dict[str, list[tuple[str, float]]]:
        """The ``n`` best ``(node_id, bm25 score)`` of each kind, from one scoring pass: each
        list is what :meth:`search` gives for that kind alone."""
        out: dict[str, list[tuple[str, float]]] = {k: [] for k in kinds}
        scored = self._scores(query, snapshot, n)
        if scored is None:
            return out
        state, scores = scored
        masks = {kind: self._mask(state, builds, frozenset({kind})) for kind in kinds}
        for kind, (rows, values) in best_rows(scores, masks, n).items():
            out[kind] = _listed(state, rows, values)
        return out

    def _scores(self, query: str, snapshot: Snapshot, n: int) -> tuple[_State, np.ndarray] | None:
        """The BM25 score of every indexed node for ``query`` (None: nothing to score)."""
        state = self._current(snapshot)
        if state is None or n <= 0:
            return None
        vocab = state.bm25.vocab_dict
        ids = sorted({vocab[t] for t in tokenize(query) if t in vocab})
        if not ids:
            return None
        return state, state.bm25.scores_of(ids)

    def _mask(
        self, state: _State, builds: frozenset[int], kinds: frozenset[str]
    ) -> np.ndarray | None:
        key = (tuple(sorted(builds)), tuple(sorted(kinds)))
        if key not in state.masks:
            mask = np.ones(len(state.node_ids), dtype=bool)
            if set(builds) != {b for _, b in state.generation}:
                mask &= np.isin(state.builds, np.fromiter(builds, dtype=np.int64))
            if "summary" not in kinds:
                mask &= ~state.summary
            if "passage" not in kinds:
                mask &= state.summary
            value = None if bool(mask.all()) else mask
            if len(state.masks) > 64:
                state.masks.clear()
            state.masks[key] = value
        return state.masks[key]

    def _current(self, snapshot: Snapshot) -> _State | None:
        for state in (self._state, self._previous):
            if state is not None and state.generation == snapshot.generation:
                return state
        # The snapshot may be older than the index (another thread published meanwhile): the
        # build filter keeps results correct, so refresh only to the catalog's current state.
        with self._lock:
            state = self._state
            latest = take_snapshot(self.catalog)
            if state is None or state.generation != latest.generation:
                state = self._load_or_build(latest)
                self._previous, self._state = self._state, state
        return state

    def on_publish(self, doc_ids: Sequence[str]) -> None:
        """A publish hook (see :data:`indexer.index.PublishHook`): refresh now, so that the
        next query does not pay for it."""
        self.refresh()

    def refresh(self, snapshot: Snapshot | None = None) -> None:
        """Bring the index up to the served documents (called after every publish)."""
        with self._lock:
            latest = snapshot or take_snapshot(self.catalog)
            if self._state is None or self._state.generation != latest.generation:
                self._previous, self._state = self._state, self._load_or_build(latest)

    # building -----------------------------------------------------------------------------
    def _load_or_build(self, snapshot: Snapshot) -> _State | None:
        if not snapshot.documents:
            return None
        parts = [_FORMAT, *(f"{d}\x00{b}" for d, b in snapshot.generation)]
        name = "index-" + hash_parts(parts)[:24]
        path = self.folder / name
        if path.is_dir():
            try:
                return _load(path, snapshot.generation)
            except (OSError, ValueError, KeyError):
                shutil.rmtree(path, ignore_errors=True)
        state = self._build(snapshot)
        self._save(state, path)
        return state

    def _build(self, snapshot: Snapshot) -> _State:
        builds = [b for _, b in snapshot.generation]
        segments = [self._segment(b) for b in builds]
        tokens = np.concatenate(
            [self._global_tokens(b, g) for b, g in zip(builds, segments, strict=True)]
        )
        bm25 = Postings()
        bm25.index_pairs(
            docs=np.repeat(
                np.arange(sum(len(g.node_ids) for g in segments), dtype=np.int64),
                np.concatenate([g.pairs for g in segments]),
            ),
            tokens=tokens,
            counts=np.concatenate([g.counts for g in segments]),
            lengths=np.concatenate([g.lengths for g in segments]),
            vocab=dict(self._vocab),
        )
        with self._lock_segments:
            self._segments = {b: self._segments[b] for b in builds if b in self._segments}
            self._remapped = {b: self._remapped[b] for b in builds if b in self._remapped}
        return _State(
            generation=snapshot.generation,
            bm25=bm25,
            node_ids=np.concatenate([g.node_ids for g in segments]),
            builds=np.repeat(
                np.asarray(builds, dtype=np.int64), [len(g.node_ids) for g in segments]
            ),
            summary=np.concatenate([g.summary for g in segments]),
        )

    def _global_tokens(self, build_id: int, seg: _Segment) -> np.ndarray:
        """A segment's token ids in the process-wide vocabulary (which only grows, so a
        segment is mapped once per process and a refresh only maps the new revision)."""
        mapped = self._remapped.get(build_id)
        if mapped is None:
            vocab = self._vocab
            remap = np.fromiter(
                (vocab.setdefault(str(w), len(vocab)) for w in seg.vocab),
                dtype=np.int64,
                count=len(seg.vocab),
            )
            mapped = remap[seg.tokens]
            with self._lock_segments:
                self._remapped[build_id] = mapped
        return mapped

    def _segment(self, build_id: int) -> _Segment:
        """A build's tokenized nodes: from memory, from disk, or tokenized now (and saved)."""
        cached = self._segments.get(build_id)
        if cached is not None:
            return cached
        path = self.folder / _SEGMENTS / f"{build_id}.npz"
        seg = None
        if path.is_file():
            try:
                with np.load(path, allow_pickle=False) as z:
                    seg = _Segment(*(z[f] for f in _SEGMENT_FIELDS))
            except (OSError, ValueError, KeyError):
                path.unlink(missing_ok=True)
        if seg is None:
            seg = _tokenize_build(self.catalog, build_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            _atomic_npz(path, **{f: getattr(seg, f) for f in _SEGMENT_FIELDS})
        with self._lock_segments:
            self._segments[build_id] = seg
        return seg

    def _save(self, state: _State, path: Path) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=self.folder))
        state.bm25.save(tmp)
        np.savez(
            tmp / "rows.npz", node_ids=state.node_ids, builds=state.builds, summary=state.summary
        )
        (tmp / "generation.json").write_text(json.dumps(state.generation))
        try:
            os.rename(tmp, path)
        except OSError:  # another process published the same generation first
            shutil.rmtree(tmp, ignore_errors=True)
        current = self.folder / "CURRENT"
        fd, tmp_name = tempfile.mkstemp(prefix=".CURRENT-", dir=self.folder)
        with os.fdopen(fd, "w") as fh:
            fh.write(path.name)
        os.replace(tmp_name, current)
        self._collect(keep={path.name}, builds={b for _, b in state.generation})

    def _collect(self, *, keep: set[str], builds: set[int]) -> None:
        """Drop index folders of old generations and segments of builds no longer served."""
        for p in self.folder.glob("index-*"):
            if p.name not in keep and _stale(p):
                shutil.rmtree(p, ignore_errors=True)
        for p in self.folder.glob(".tmp-*"):
            if _stale(p):
                shutil.rmtree(p, ignore_errors=True)
        for p in (self.folder / _SEGMENTS).glob("*.npz"):
            if p.stem.isdigit() and int(p.stem) not in builds:
                p.unlink(missing_ok=True)
        for p in self.folder.glob("segments*"):
            if p.name != _SEGMENTS and _stale(p):  # an earlier format's
                shutil.rmtree(p, ignore_errors=True)


def _stale(path: Path) -> bool:
    """Older than a reader could still be using; False for a folder already gone (a concurrent
    publish renamed its ``.tmp-`` folder, or a concurrent sweep removed it, since the listing)."""
    try:
        return time.time() - path.stat().st_mtime > _STALE_INDEX_SECONDS
    except FileNotFoundError:
        return False


def _listed(state: _State, rows: np.ndarray, values: np.ndarray) -> list[tuple[str, float]]:
    node_ids = state.node_ids
    return [
        (str(node_ids[r]), float(v)) for r, v in zip(rows.tolist(), values.tolist(), strict=True)
    ]


def _load(path: Path, generation: tuple[tuple[str, int], ...]) -> _State:
    bm25 = Postings.load(path)
    with np.load(path / "rows.npz", allow_pickle=False) as z:
        node_ids, builds, summary = z["node_ids"], z["builds"], z["summary"]
    stored = tuple(tuple(p) for p in json.loads((path / "generation.json").read_text()))
    if stored != generation:
        raise ValueError("generation mismatch")
    return _State(generation, bm25, node_ids, builds, summary)


def _tokenize_build(catalog: Catalog, build_id: int) -> _Segment:
    rows = catalog.nodes.lexical_rows(build_id)
    vocab: dict[str, int] = {}
    tokens: list[int] = []
    counts: list[int] = []
    pairs, lengths, node_ids, summary = [], [], [], []
    for r in rows:
        bag = Counter(tokenize(lexical_text(r.level, r.heading_path, r.text)))
        tokens.extend(vocab.setdefault(t, len(vocab)) for t in bag)
        counts.extend(bag.values())
        pairs.append(len(bag))
        lengths.append(sum(bag.values()))
        node_ids.append(r.node_id)
        summary.append(r.level != "passage")
    return _Segment(
        node_ids=np.array(node_ids, dtype=str),
        summary=np.array(summary, dtype=bool),
        lengths=np.array(lengths, dtype=np.int32),
        vocab=np.array(list(vocab) or [""], dtype=str),
        tokens=np.array(tokens, dtype=np.int32),
        counts=np.array(counts, dtype=np.int32),
        pairs=np.array(pairs, dtype=np.int64),
    )


def _atomic_npz(path: Path, **arrays: np.ndarray) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".seg-", suffix=".npz", dir=path.parent)
    with os.fdopen(fd, "wb") as fh:
        np.savez(fh, **arrays)  # type: ignore[arg-type]
    os.replace(tmp, path)
