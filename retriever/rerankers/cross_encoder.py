"""A sentence-transformers ``CrossEncoder`` as reranker (setting ``cross_encoder_model``).

The model is a local folder or a name already in the Hugging Face cache: it is loaded with
``local_files_only`` and ``HF_HUB_OFFLINE=1``, so a missing model is a configuration error, never
a download. It reads the query and each candidate's text together, which costs one transformer
pass per candidate (see ``make bench`` for the cost per candidate).
"""

from __future__ import annotations

import os
import threading
from typing import Any

from indexer.errors import BackendError, ConfigError
from retriever.rerankers.base import RerankInput

_BATCH = 32


class CrossEncoderReranker:
    """Scores ``(query, candidate text)`` pairs with a cross-encoder, loaded on first use."""

    name = "cross-encoder"

    def __init__(self, model: str, *, threads: int = 1, max_length: int = 256) -> None:
        self.model = model
        self.threads = threads
        self.max_length = max_length
        self._encoder: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._encoder is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                import torch
                from sentence_transformers import CrossEncoder

                torch.set_num_threads(self.threads)
                try:
                    self._encoder = CrossEncoder(
                        self.model,
                        device="cpu",
                        local_files_only=True,
                        max_length=self.max_length,
                    )
                except (OSError, ValueError) as exc:
                    raise ConfigError(
                        f"cannot load the cross-encoder {self.model!r} (setting "
                        f"cross_encoder_model): give a local model folder or a model already in "
                        f"the Hugging Face cache; nothing is downloaded ({exc})"
                    ) from exc
        return self._encoder

    def rerank(self, data: RerankInput) -> list[float]:
        """The cross-encoder's relevance score of every candidate."""
        if not data.candidates:
            return []
        encoder = self._load()
        texts = data.texts()
        pairs = [(data.query, texts.get(c.node_id, "")) for c in data.candidates]
        try:
            scores = encoder.predict(pairs, batch_size=_BATCH, show_progress_bar=False)
        except RuntimeError as exc:
            raise BackendError(f"cross-encoder {self.model!r} failed: {exc}") from exc
        return [float(s) for s in scores]
