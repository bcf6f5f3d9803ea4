"""Summarizer backends, chosen by name in the settings."""

from __future__ import annotations

from indexer.errors import ConfigError
from indexer.settings import Settings
from indexer.summarizers.base import (
    Summarizer,
    SummarizerIdentity,
    SummaryRequest,
    SummaryResult,
    cache_key,
)


def make_summarizer(settings: Settings) -> Summarizer:
    """The summarizer named by ``settings.summarizer``."""
    if settings.summarizer == "extractive":
        from indexer.summarizers.extractive import ExtractiveSummarizer

        return ExtractiveSummarizer(max_tokens=settings.summary_tokens)
    if settings.summarizer == "openai":
        from indexer.summarizers.openai_chat import make_openai_summarizer

        return make_openai_summarizer(settings)
    if settings.summarizer == "local":
        from indexer.summarizers.local import make_local_summarizer

        return make_local_summarizer(settings)
    if settings.summarizer == "llamacpp":
        from indexer.summarizers.llamacpp import make_llamacpp_summarizer

        return make_llamacpp_summarizer(settings)
    raise ConfigError(f"unknown summarizer backend {settings.summarizer!r}")


__all__ = [
    "Summarizer",
    "SummarizerIdentity",
    "SummaryRequest",
    "SummaryResult",
    "cache_key",
    "make_summarizer",
]
