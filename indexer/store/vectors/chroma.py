"""Chroma as the vector store: embedded (``PersistentClient``) or a server (``HttpClient``).

We always pass our own vectors; Chroma's default embedding function (which downloads a model)
is never used. Errors from Chroma are mapped to :class:`BackendError` at this boundary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

from indexer.errors import BackendError, ConfigError

COLLECTION = "overstory"
_BATCH = 2000


class ChromaVectorStore:
    """One Chroma collection holding passage and summary vectors of every document."""

    def __init__(self, *, path: Path | None = None, url: str | None = None) -> None:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
        try:
            if url:
                parsed = urlparse(url)
                if not parsed.hostname:
                    raise ConfigError(f"chroma_url {url!r} is not a URL like http://127.0.0.1:8001")
                self.client: Any = chromadb.HttpClient(
                    host=parsed.hostname,
                    port=parsed.port or (443 if parsed.scheme == "https" else 80),
                    ssl=parsed.scheme == "https",
                    settings=chroma_settings,
                )
            else:
                assert path is not None
                path.mkdir(parents=True, exist_ok=True)
                self.client = chromadb.PersistentClient(path=str(path), settings=chroma_settings)
            self.collection = self.client.get_or_create_collection(
                COLLECTION, metadata={"hnsw:space": "cosine"}, embedding_function=None
            )
        except ConfigError:
            raise
        except Exception as exc:
            where = url or str(path)
            raise BackendError(f"cannot open the Chroma store at {where}: {exc}") from exc

    def upsert(
        self, ids: list[str], vectors: np.ndarray, *, doc_ids: list[str], kinds: list[str]
    ) -> None:
        for i in range(0, len(ids), _BATCH):
            sl = slice(i, i + _BATCH)
            metas: list[Any] = [
                {"doc_id": d, "kind": k} for d, k in zip(doc_ids[sl], kinds[sl], strict=True)
            ]
            self._call(
                self.collection.upsert,
                ids=ids[sl],
                embeddings=np.asarray(vectors[sl], dtype=np.float32),
                metadatas=metas,
            )

    def existing(self, ids: list[str]) -> set[str]:
        found: set[str] = set()
        ids = list(dict.fromkeys(ids))
        for i in range(0, len(ids), _BATCH):
            res = self._call(self.collection.get, ids=ids[i : i + _BATCH], include=[])
            found.update(res["ids"])
        return found

    def get(self, ids: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        # Chroma refuses a request that names an id twice; repeated text shares one vector.
        ids = list(dict.fromkeys(ids))
        for i in range(0, len(ids), _BATCH):
            res = self._call(self.collection.get, ids=ids[i : i + _BATCH], include=["embeddings"])
            for vid, vec in zip(res["ids"], res["embeddings"], strict=True):
                out[vid] = np.asarray(vec, dtype=np.float32)
        return out

    def delete(self, ids: list[str]) -> None:
        for i in range(0, len(ids), _BATCH):
            self._call(self.collection.delete, ids=ids[i : i + _BATCH])

    def ids_of_document(self, doc_id: str) -> set[str]:
        res = self._call(self.collection.get, where={"doc_id": doc_id}, include=[])
        return set(res["ids"])

    def all_ids(self) -> set[str]:
        ids: set[str] = set()
        offset = 0
        while True:
            res = self._call(self.collection.get, include=[], limit=_BATCH * 5, offset=offset)
            if not res["ids"]:
                return ids
            ids.update(res["ids"])
            offset += len(res["ids"])

    def query(self, vector: np.ndarray, n: int) -> list[tuple[str, float]]:
        if n <= 0:
            return []
        embedding = [np.asarray(vector, dtype=np.float32)]
        try:
            # Chroma 1.x clamps n_results to the collection size; counting first on every query
            # cost 40 ms at 150k vectors (measured by benchmarks/bench_retriever.py).
            res = self.collection.query(
                query_embeddings=embedding, n_results=n, include=["distances"]
            )
        except Exception:
            total = self.count()
            if total == 0:
                return []
            res = self._call(
                self.collection.query,
                query_embeddings=embedding,
                n_results=min(n, total),
                include=["distances"],
            )
        return [
            (vid, 1.0 - float(dist))
            for vid, dist in zip(res["ids"][0], res["distances"][0], strict=True)
        ]

    def count(self) -> int:
        return int(self._call(self.collection.count))

    @staticmethod
    def _call(fn: Any, **kwargs: Any) -> Any:
        try:
            return fn(**kwargs)
        except Exception as exc:
            raise BackendError(f"Chroma: {exc}") from exc
