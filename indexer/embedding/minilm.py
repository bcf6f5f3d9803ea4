"""all-MiniLM-L6-v2 through sentence-transformers, loaded from the bundled package folder."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from indexer.tokens import model_dir


class MiniLMEmbedder:
    """The default embedder. Torch is imported on first use only (it costs seconds)."""

    name = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, *, threads: int = 1, batch_size: int = 32) -> None:
        self.threads = threads
        self.batch_size = batch_size
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            import torch
            from sentence_transformers import SentenceTransformer

            torch.set_num_threads(self.threads)
            self._model = SentenceTransformer(str(model_dir()), device="cpu")
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        vecs = model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vecs, dtype=np.float32)
