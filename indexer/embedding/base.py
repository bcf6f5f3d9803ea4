"""The embedder interface: texts in, L2-normalized float32 vectors out."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Embedder(Protocol):
    """Turns texts into unit vectors; ``name`` identifies the model (stored with the index)."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors of shape ``(len(texts), dim)``, float32, unit length."""
        ...
