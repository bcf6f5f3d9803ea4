"""Rerankers, chosen by name in the settings (``reranker``, ``cross_encoder_model``)."""

from __future__ import annotations

from indexer.errors import ConfigError
from indexer.settings import Settings
from retriever.rerankers.base import Reranker, RerankInput


def make_reranker(settings: Settings) -> Reranker:
    """The reranker named by ``settings.reranker`` (``auto``: cross-encoder when configured)."""
    name = settings.reranker
    if name == "auto":
        name = "cross-encoder" if settings.cross_encoder_model else "offline"
    if name == "none":
        from retriever.rerankers.fusion import FusionOrder

        return FusionOrder()
    if name == "cross-encoder":
        if not settings.cross_encoder_model:
            raise ConfigError("reranker 'cross-encoder' needs the setting cross_encoder_model")
        from retriever.rerankers.cross_encoder import CrossEncoderReranker

        return CrossEncoderReranker(settings.cross_encoder_model, threads=settings.torch_threads)
    from retriever.rerankers.offline import CalibratedReranker

    return CalibratedReranker()


__all__ = ["Reranker", "RerankInput", "make_reranker"]
