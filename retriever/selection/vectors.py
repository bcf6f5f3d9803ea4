"""The passages in scope and their stored vectors, without re-embedding anything.

Scope: every served document, some ``doc_id``s, or the subtree below one node of a served build.
Vectors come from the vector store (Chroma) by id. Because a ``get`` of many ids costs a good
part of a selection, each served build's passage matrix is also kept as a derived file
``<store>/selection-cache/b<build_id>-<tag>.npz`` (rows in document order, with the node ids
they belong to). A build never changes once published, so the file is valid for as long as the
build is served; it is rebuilt from the vector store when missing or when its node ids do not
match, and files of builds no longer served are deleted when a new one is written.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from indexer.errors import (
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    StoreInconsistentError,
)
from indexer.hashing import hash_parts
from indexer.store.backends import Row
from indexer.store.records import PassageRow

if TYPE_CHECKING:
    from indexer.index import Index

CACHE_DIR = "selection-cache"


@dataclass
class PassageSet:
    """Passages in scope, in a stable order (doc_id, then document order), with vectors."""

    node_ids: list[str]
    doc_ids: list[str]
    doc_codes: np.ndarray
    path_codes: np.ndarray
    paths: list[str]
    vectors: np.ndarray
    documents: list[str]
    """``documents[doc_codes[i]]`` is passage i's document and ``paths[path_codes[i]]`` its
    heading path as stored (JSON text)."""

    def __len__(self) -> int:
        return len(self.node_ids)


def load_passages(
    index: Index,
    *,
    documents: list[str] | None = None,
    under: str | None = None,
    use_cache: bool = True,
) -> PassageSet:
    """The served passages of the scope and their stored vectors.

    Args:
        index: The store.
        documents: Only these ``doc_id``s (default: every served document).
        under: Only the passages below this node (it must belong to a served build).
        use_cache: Read and write the per-build vector matrix files.

    Raises:
        NotFoundError: An unknown document, or a node that is unknown or not served.
        InvalidRequestError: ``under`` lies outside the requested ``documents``.
        StoreInconsistentError: A passage's vector is missing from the vector store.
        ConflictError: The documents in scope were embedded by different models.
    """
    with index.catalog.read_snapshot():
        return _load(index, documents=documents, under=under, use_cache=use_cache)


def _scope(
    index: Index, served: dict[str, int], *, documents: list[str] | None, under: str | None
) -> tuple[list[str], set[str] | None]:
    """The documents in scope, and the node ids below ``under`` (None: no such restriction)."""
    if documents:
        for doc_id in documents:
            if doc_id not in served:
                raise NotFoundError(f"no document {doc_id!r}", detail={"doc_id": doc_id})
        scope_docs = sorted(set(documents))
    else:
        scope_docs = sorted(served)
    if under is None:
        return scope_docs, None
    node = index.catalog.node(under)
    if node is None or served.get(node["doc_id"]) != node["build_id"]:
        raise NotFoundError(f"no node {under!r} in a served revision", detail={"node_id": under})
    if node["doc_id"] not in scope_docs:
        raise InvalidRequestError(
            f"node {under!r} belongs to {node['doc_id']!r}, outside the requested documents",
            detail={"node_id": under, "doc_id": node["doc_id"]},
        )
    return [node["doc_id"]], index.catalog.nodes.subtree_ids(under)


@dataclass
class _Blocks:
    """The passage set under construction, one document at a time."""

    node_ids: list[str] = field(default_factory=list)
    doc_ids: list[str] = field(default_factory=list)
    doc_codes: list[np.ndarray] = field(default_factory=list)
    path_code: dict[str, int] = field(default_factory=dict)
    codes: list[int] = field(default_factory=list)
    matrices: list[np.ndarray] = field(default_factory=list)

    def add(
        self, code: int, doc_id: str, rows: list[PassageRow], matrix: np.ndarray, keep: np.ndarray
    ) -> None:
        self.node_ids.extend(rows[i].node_id for i in keep)
        self.doc_ids.extend([doc_id] * len(keep))
        self.doc_codes.append(np.full(len(keep), code, dtype=np.int64))
        self.codes.extend(
            self.path_code.setdefault(rows[i].heading_path, len(self.path_code)) for i in keep
        )
        self.matrices.append(matrix[keep])

    def result(self, scope_docs: list[str]) -> PassageSet:
        dim = self.matrices[0].shape[1] if self.matrices else 0
        return PassageSet(
            self.node_ids,
            self.doc_ids,
            np.concatenate(self.doc_codes) if self.doc_codes else np.zeros(0, dtype=np.int64),
            np.array(self.codes, dtype=np.int64),
            list(self.path_code),
            np.concatenate(self.matrices)
            if self.matrices
            else np.zeros((0, dim), dtype=np.float32),
            scope_docs,
        )


def _load(
    index: Index, *, documents: list[str] | None, under: str | None, use_cache: bool
) -> PassageSet:
    served = index.catalog.current_builds()
    scope_docs, subtree = _scope(index, served, documents=documents, under=under)
    cache = VectorCache(index.settings.store / CACHE_DIR) if use_cache else None
    tags = _build_tags(index, [served[d] for d in scope_docs])
    blocks = _Blocks()
    wrote = False
    for code, doc_id in enumerate(scope_docs):
        build_id = served[doc_id]
        rows = index.catalog.nodes.passages_of_build(build_id)
        if not rows:
            continue
        ids = [r.node_id for r in rows]
        matrix = cache.load(build_id, tags[build_id], ids) if cache else None
        if matrix is None:
            matrix = _from_vector_store(index, doc_id, [r.vector_id or "" for r in rows])
            if cache is not None:
                wrote = cache.save(build_id, tags[build_id], ids, matrix) or wrote
        keep = np.arange(len(rows))
        if subtree is not None:
            keep = np.array([i for i, nid in enumerate(ids) if nid in subtree], dtype=np.int64)
        blocks.add(code, doc_id, rows, matrix, keep)
    if cache is not None and wrote:
        cache.prune(set(served.values()))
    return blocks.result(scope_docs)


def passage_details(index: Index, node_ids: list[str]) -> dict[str, Row]:
    """Text and provenance of passages: node row plus ``source`` and ``revision``."""
    return index.catalog.nodes.passage_details(node_ids)


def _build_tags(index: Index, build_ids: list[int]) -> dict[int, str]:
    """A tag per build from its revision and embedder, so a reused build id never matches.

    Raises:
        ConflictError: The builds were embedded by different models (their vectors are not
            comparable, so clustering them together is meaningless).
    """
    out: dict[int, str] = {}
    models: dict[str, str] = {}
    for build in index.catalog.builds(build_ids).values():
        out[build.build_id] = hash_parts([build.revision, build.embedder])[:12]
        models.setdefault(build.embedder, build.doc_id)
    if len(models) > 1:
        raise ConflictError(
            "the documents in scope were embedded by different models "
            f"({', '.join(sorted(models))}); re-ingest them with one embedder or narrow the scope",
            detail={"embedders": {m: f"e.g. {d}" for m, d in sorted(models.items())}},
        )
    return out


def _from_vector_store(index: Index, doc_id: str, vector_ids: list[str]) -> np.ndarray:
    unique = sorted(set(vector_ids))
    found = index.vectors.get(unique)
    missing = [v for v in unique if v not in found]
    if missing:
        raise StoreInconsistentError(
            f"{len(missing)} passage vectors of {doc_id!r} are missing from the vector store;"
            " run `overstory doctor --repair`",
            detail={"doc_id": doc_id, "missing": missing[:20]},
        )
    return np.stack([found[v] for v in vector_ids]).astype(np.float32, copy=False)


class VectorCache:
    """Per-build passage matrices as ``.npz`` files (derived data, safe to delete)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, build_id: int, tag: str) -> Path:
        """The file of one build."""
        return self.folder / f"b{build_id}-{tag}.npz"

    def load(self, build_id: int, tag: str, node_ids: list[str]) -> np.ndarray | None:
        """The stored matrix, or None when absent, unreadable or not for these nodes."""
        try:
            with np.load(self.path(build_id, tag), allow_pickle=False) as data:
                stored_ids = data["node_ids"]
                if stored_ids.shape[0] != len(node_ids) or not np.array_equal(
                    stored_ids, np.array(node_ids)
                ):
                    return None
                return np.asarray(data["vectors"], dtype=np.float32)
        except (OSError, KeyError, ValueError):
            return None

    def save(self, build_id: int, tag: str, node_ids: list[str], vectors: np.ndarray) -> bool:
        """Write atomically (temp file, then rename); a read-only store is not an error."""
        final = self.path(build_id, tag)
        tmp = final.with_name(f".{final.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as fh:
                np.savez(fh, node_ids=np.array(node_ids), vectors=vectors)
            os.replace(tmp, final)
            for older in self.folder.glob(f"b{build_id}-*.npz"):
                if older != final:
                    older.unlink(missing_ok=True)
            return True
        except OSError:
            tmp.unlink(missing_ok=True)
            return False

    def prune(self, served: set[int]) -> None:
        """Delete the files of builds that are no longer served."""
        try:
            entries: list[Any] = list(self.folder.glob("b*-*.npz"))
        except OSError:
            return
        for path in entries:
            build = path.name[1:].split("-", 1)[0]
            if build.isdigit() and int(build) not in served:
                path.unlink(missing_ok=True)
