"""Embedding backends, chosen by name in the settings."""

from __future__ import annotations

from indexer.embedding.base import Embedder
from indexer.errors import ConfigError
from indexer.settings import Settings


def make_embedder(settings: Settings, *, purpose: str = "ingest") -> Embedder:
    """The embedder named by ``settings.embedder`` (and, for MiniLM, its runtime and precision).

    ``purpose`` picks the thread count: ``ingest`` favours throughput, ``query`` latency.
    """
    if settings.embedder == "hashing":
        from indexer.embedding.hashing import HashingEmbedder

        return HashingEmbedder()
    threads = settings.ingest_threads if purpose == "ingest" else settings.torch_threads
    if settings.encoder_runtime == "onnx":
        from indexer.embedding.onnx_export import default_dir
        from indexer.embedding.onnx_runtime import OnnxMiniLMEmbedder

        return OnnxMiniLMEmbedder(
            folder=settings.onnx_dir or default_dir(),
            precision=settings.encoder_precision,
            threads=threads,
            batch_size=settings.embed_batch_size,
        )
    if settings.encoder_precision != "fp32":
        raise ConfigError("encoder_precision int8 needs encoder_runtime onnx")
    from indexer.embedding.minilm import MiniLMEmbedder

    return MiniLMEmbedder(threads=threads, batch_size=settings.embed_batch_size)


def encoder_identity(settings: Settings) -> str:
    """The name the configured encoder stores with its vectors, without loading it."""
    if settings.embedder == "hashing":
        from indexer.embedding.hashing import HashingEmbedder

        return HashingEmbedder.name
    from indexer.embedding.onnx_runtime import encoder_name

    return encoder_name(settings.encoder_precision)


__all__ = ["Embedder", "encoder_identity", "make_embedder"]
