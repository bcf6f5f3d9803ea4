"""A deterministic, dependency-free embedder for fast unit tests (hashed bag of words)."""

from __future__ import annotations

import re

import numpy as np
import xxhash

_WORD = re.compile(r"\w+")


class HashingEmbedder:
    """Each word adds +-1 to a hashed dimension; similar texts share words, so share direction."""

    name = "hashing-384"

    def __init__(self, dim: int = 384) -> None:
        self.dim = dim

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                h = xxhash.xxh64_intdigest(word.encode("utf-8"))
                out[row, h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
            norm = float(np.linalg.norm(out[row]))
            if norm > 0:
                out[row] /= norm
            else:
                out[row, 0] = 1.0
        return out
