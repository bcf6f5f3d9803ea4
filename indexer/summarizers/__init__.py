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
    raise ConfigError(f"summarizer backend {settings.summarizer!r} is not available yet")


__all__ = [
    "Summarizer",
    "SummarizerIdentity",
    "SummaryRequest",
    "SummaryResult",
    "cache_key",
    "make_summarizer",
]
