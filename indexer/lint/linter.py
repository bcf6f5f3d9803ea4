"""The lint as configured: which sentence vectors align, built once at the edge."""

from __future__ import annotations

from collections.abc import Sequence

from indexer.embedding.base import Embedder
from indexer.lint.check import lint_summary
from indexer.lint.confidence import ConfidenceModel, default_model
from indexer.lint.decide import Decider
from indexer.lint.flags import LintFlag
from indexer.lint.vectors import EmbedderSentences, SentenceVectors, StaticSentences
from indexer.settings import Settings

# Part of every cached flag's inputs: flags computed by another version are recomputed.
LINT_VERSION = "spans-8"


class Linter:
    """Lints summaries with one alignment (static vectors, an embedder, or shared words) and
    rates each flag's confidence."""

    def __init__(
        self,
        vectors: SentenceVectors | None = None,
        decider: Decider | None = None,
        *,
        confidence: ConfidenceModel | None = None,
    ) -> None:
        self.vectors = vectors
        self.decider = decider
        self.confidence = confidence if confidence is not None else default_model()
        self.name = f"{LINT_VERSION}/{vectors.name if vectors is not None else 'words'}"

    @classmethod
    def from_settings(cls, settings: Settings, *, embedder: Embedder | None = None) -> Linter:
        """The linter ``settings.lint_alignment`` names.

        Args:
            settings: The settings.
            embedder: The index's embedder, for ``lint_alignment = "encoder"`` (made from the
                settings when omitted).
        """
        if settings.lint_alignment == "words":
            return cls(None)
        if settings.lint_alignment == "encoder":
            from indexer.embedding import make_embedder

            return cls(EmbedderSentences(embedder or make_embedder(settings, purpose="query")))
        from indexer.embedding.onnx_export import default_dir

        return cls(StaticSentences(folder=settings.onnx_dir or default_dir()))

    def lint(
        self, summary: str, sources: Sequence[str], labels: Sequence[str] = ()
    ) -> list[LintFlag]:
        """The flags of ``summary`` against ``sources`` and their ``labels`` (headings, titles;
        see :func:`lint_summary`)."""
        flags = lint_summary(
            summary, sources, labels=labels, vectors=self.vectors, decider=self.decider
        )
        return self.confidence.rate(flags)
