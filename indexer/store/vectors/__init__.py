"""Vector store backends."""

from __future__ import annotations

from indexer.settings import Settings
from indexer.store.vectors.base import VectorStore


def make_vector_store(settings: Settings) -> VectorStore:
    """Chroma embedded under the store folder, or a Chroma server when ``chroma_url`` is set."""
    from indexer.store.vectors.chroma import ChromaVectorStore

    if settings.chroma_url:
        return ChromaVectorStore(url=settings.chroma_url)
    return ChromaVectorStore(path=settings.store / "chroma")


__all__ = ["VectorStore", "make_vector_store"]
