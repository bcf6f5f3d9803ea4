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
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
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
    with _snapshot(index.catalog.db):
        return _load(index, documents=documents, under=under, use_cache=use_cache)


@contextmanager
def _snapshot(db: sqlite3.Connection) -> Iterator[None]:
    """One read transaction: every query sees the same published revisions (WAL snapshot)."""
    if db.in_transaction:
        yield
        return
    db.execute("BEGIN")
    try:
        yield
    finally:
        db.execute("COMMIT")


def _load(
    index: Index, *, documents: list[str] | None, under: str | None, use_cache: bool
) -> PassageSet:
    served = index.catalog.current_builds()
    if documents:
        for doc_id in documents:
            if doc_id not in served:
                raise NotFoundError(f"no document {doc_id!r}", detail={"doc_id": doc_id})
        scope_docs = sorted(set(documents))
    else:
        scope_docs = sorted(served)
    subtree: set[str] | None = None
    if under is not None:
        node = index.catalog.node(under)
        if node is None or served.get(node["doc_id"]) != node["build_id"]:
            raise NotFoundError(
                f"no node {under!r} in a served revision", detail={"node_id": under}
            )
        if node["doc_id"] not in scope_docs:
            raise InvalidRequestError(
                f"node {under!r} belongs to {node['doc_id']!r}, outside the requested documents",
                detail={"node_id": under, "doc_id": node["doc_id"]},
            )
        scope_docs = [node["doc_id"]]
        subtree = _subtree(index.catalog.db, under)
    cache = VectorCache(index.settings.store / CACHE_DIR) if use_cache else None
    tags = _build_tags(index.catalog.db, [served[d] for d in scope_docs])
    node_ids: list[str] = []
    doc_ids: list[str] = []
    doc_codes: list[np.ndarray] = []
    path_code: dict[str, int] = {}
    codes: list[int] = []
    blocks: list[np.ndarray] = []
    wrote = False
    for code, doc_id in enumerate(scope_docs):
        build_id = served[doc_id]
        rows = index.catalog.db.execute(
            "SELECT node_id, heading_path FROM nodes"
            " WHERE build_id = ? AND level = 'passage' ORDER BY ordinal",
            (build_id,),
        ).fetchall()
        if not rows:
            continue
        ids = [r["node_id"] for r in rows]
        matrix = cache.load(build_id, tags[build_id], ids) if cache else None
        if matrix is None:
            vector_ids = [
                r[0]
                for r in index.catalog.db.execute(
                    "SELECT vector_id FROM nodes"
                    " WHERE build_id = ? AND level = 'passage' ORDER BY ordinal",
                    (build_id,),
                )
            ]
            matrix = _from_vector_store(index, doc_id, vector_ids)
            if cache is not None:
                wrote = cache.save(build_id, tags[build_id], ids, matrix) or wrote
        keep = np.arange(len(rows))
        if subtree is not None:
            keep = np.array([i for i, nid in enumerate(ids) if nid in subtree], dtype=np.int64)
        node_ids.extend(ids[i] for i in keep)
        doc_ids.extend([doc_id] * len(keep))
        doc_codes.append(np.full(len(keep), code, dtype=np.int64))
        codes.extend(path_code.setdefault(rows[i]["heading_path"], len(path_code)) for i in keep)
        blocks.append(matrix[keep] if subtree is not None else matrix)
    if cache is not None and wrote:
        cache.prune(set(served.values()))
    dim = blocks[0].shape[1] if blocks else 0
    vectors = np.concatenate(blocks) if blocks else np.zeros((0, dim), dtype=np.float32)
    return PassageSet(
        node_ids,
        doc_ids,
        np.concatenate(doc_codes) if doc_codes else np.zeros(0, dtype=np.int64),
        np.array(codes, dtype=np.int64),
        list(path_code),
        vectors,
        scope_docs,
    )


def passage_details(index: Index, node_ids: list[str]) -> dict[str, sqlite3.Row]:
    """Text and provenance of passages: node row plus ``source`` and ``revision``."""
    out: dict[str, sqlite3.Row] = {}
    for i in range(0, len(node_ids), 500):
        chunk = node_ids[i : i + 500]
        marks = ",".join("?" * len(chunk))
        for r in index.catalog.db.execute(
            "SELECT n.node_id, n.doc_id, n.heading_path, n.char_start, n.char_end,"
            " n.page_start, n.page_end, n.text, d.source, b.revision"
            " FROM nodes n JOIN builds b ON b.build_id = n.build_id"
            " JOIN documents d ON d.doc_id = n.doc_id"
            f" WHERE n.node_id IN ({marks})",
            chunk,
        ):
            out[r["node_id"]] = r
    return out


def _subtree(db: sqlite3.Connection, node_id: str) -> set[str]:
    rows = db.execute(
        "WITH RECURSIVE below(id) AS (SELECT ? UNION ALL"
        " SELECT n.node_id FROM nodes n JOIN below ON n.parent_id = below.id)"
        " SELECT id FROM below",
        (node_id,),
    )
    return {r[0] for r in rows}


def _build_tags(db: sqlite3.Connection, build_ids: list[int]) -> dict[int, str]:
    """A tag per build from its revision and embedder, so a reused build id never matches.

    Raises:
        ConflictError: The builds were embedded by different models (their vectors are not
            comparable, so clustering them together is meaningless).
    """
    out: dict[int, str] = {}
    models: dict[str, str] = {}
    for i in range(0, len(build_ids), 500):
        chunk = build_ids[i : i + 500]
        marks = ",".join("?" * len(chunk))
        for r in db.execute(
            f"SELECT build_id, doc_id, revision, embedder FROM builds WHERE build_id IN ({marks})",
            chunk,
        ):
            out[r["build_id"]] = hash_parts([r["revision"], r["embedder"]])[:12]
            models.setdefault(r["embedder"], r["doc_id"])
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
