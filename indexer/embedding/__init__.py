"""Embedding backends, chosen by name in the settings."""

from __future__ import annotations

from indexer.embedding.base import Embedder
from indexer.settings import Settings


def make_embedder(settings: Settings, *, purpose: str = "ingest") -> Embedder:
    """The embedder named by ``settings.embedder``.

    ``purpose`` picks the thread count: ``ingest`` favours throughput, ``query`` latency.
    """
    if settings.embedder == "hashing":
        from indexer.embedding.hashing import HashingEmbedder

        return HashingEmbedder()
    from indexer.embedding.minilm import MiniLMEmbedder

    threads = settings.ingest_threads if purpose == "ingest" else settings.torch_threads
    return MiniLMEmbedder(threads=threads, batch_size=settings.embed_batch_size)


__all__ = ["Embedder", "make_embedder"]
