"""Sentence vectors for aligning a summary with its source, from the index's own encoder.

Encoding every source sentence with the contextual encoder would cost as much again as the
ingest's passage encoding (7–8 ms a sentence here), so alignment uses static token vectors
distilled from the same model (Model2Vec's recipe: every vocabulary token run through the encoder
on its own, once): a sentence vector is the mean of its content tokens' vectors, minus the
vocabulary mean, normalized — microseconds a sentence. The table (30,522 × 384, float16) is
computed on first use in about 11 s and kept beside the ONNX export.

Any other :class:`~indexer.embedding.base.Embedder` (the hashing embedder of the tests, a
contextual encoder by choice) can align instead through :class:`EmbedderSentences`.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from indexer.embedding.base import Embedder
from indexer.lint.text import STOP

log = logging.getLogger("overstory.lint")
_CACHE_SIZE = 20_000


class SentenceVectors(Protocol):
    """Unit vectors of sentences; ``name`` says where they come from."""

    name: str

    def vectors(self, sentences: list[str]) -> np.ndarray:
        """Shape ``(len(sentences), dim)``, float32, unit length (zero for an empty sentence)."""
        ...


class _Cached:
    """An LRU of sentence vectors: a passage linted under several summaries is encoded once."""

    def __init__(self) -> None:
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def vectors(self, sentences: list[str]) -> np.ndarray:
        with self._lock:
            missing = list(dict.fromkeys(s for s in sentences if s not in self._cache))
        if missing:
            fresh = self._encode(missing)
            with self._lock:
                for s, v in zip(missing, fresh, strict=True):
                    self._cache[s] = v
                while len(self._cache) > _CACHE_SIZE:
                    self._cache.popitem(last=False)
        with self._lock:
            rows = []
            for s in sentences:
                v = self._cache.get(s)
                rows.append(v if v is not None else self._encode([s])[0])
        return np.stack(rows) if rows else np.zeros((0, 1), dtype=np.float32)

    def fresh(self, sentences: list[str]) -> np.ndarray:
        """Vectors encoded now and not cached (word spans, seen once)."""
        return self._encode(sentences) if sentences else np.zeros((0, 1), dtype=np.float32)

    def _encode(self, sentences: list[str]) -> np.ndarray:
        raise NotImplementedError


class EmbedderSentences(_Cached):
    """Sentence vectors from any embedder (contextual MiniLM, the hashing embedder)."""

    def __init__(self, embedder: Embedder) -> None:
        super().__init__()
        self.embedder = embedder
        self.name = embedder.name

    def _encode(self, sentences: list[str]) -> np.ndarray:
        return np.asarray(self.embedder.embed(sentences), dtype=np.float32)


class StaticSentences(_Cached):
    """Mean of distilled static token vectors of the MiniLM encoder (see the module doc)."""

    def __init__(self, *, folder: Path, threads: int = 1) -> None:
        super().__init__()
        self.folder = folder
        self.threads = threads
        self.name = "all-MiniLM-L6-v2/static"
        self._table: np.ndarray | None = None
        self._tokenizer: Any = None
        self._stop_ids: set[int] = set()
        self._load_lock = threading.Lock()

    def _load(self) -> tuple[np.ndarray, Any]:
        with self._load_lock:
            if self._table is None:
                from tokenizers import Tokenizer

                from indexer.tokens import model_dir

                tokenizer = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
                tokenizer.no_padding()
                tokenizer.no_truncation()
                self._table = _table(self.folder, self.threads, tokenizer)
                self._tokenizer = tokenizer
                vocab = tokenizer.get_vocab()
                self._stop_ids = {vocab[w] for w in STOP if w in vocab}
                self._stop_ids |= {i for t, i in vocab.items() if not any(c.isalnum() for c in t)}
        return self._table, self._tokenizer

    def _encode(self, sentences: list[str]) -> np.ndarray:
        table, tokenizer = self._load()
        out = np.zeros((len(sentences), table.shape[1]), dtype=np.float32)
        for row, enc in enumerate(tokenizer.encode_batch(sentences, add_special_tokens=False)):
            ids = [i for i in enc.ids if i not in self._stop_ids] or list(enc.ids)
            if not ids:
                continue
            v = table[ids].astype(np.float32).mean(axis=0)
            norm = float(np.linalg.norm(v))
            out[row] = v / norm if norm else v
        return out


def _table(folder: Path, threads: int, tokenizer: Any) -> np.ndarray:
    """The static token table, centred, loaded from beside the ONNX export or made now."""
    from indexer.embedding.onnx_export import ensure

    path = folder / "static-token-vectors.fp16.npy"
    if path.exists():
        return np.load(path)
    import onnxruntime as ort

    log.info("distilling static token vectors for the lint (once, about 11 s)")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.log_severity_level = 3
    session = ort.InferenceSession(
        str(ensure(folder, "fp32")), options, providers=["CPUExecutionProvider"]
    )
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    size = tokenizer.get_vocab_size()
    parts = []
    for start in range(0, size, 2048):
        ids = np.arange(start, min(size, start + 2048), dtype=np.int64)
        batch = np.stack([np.full_like(ids, cls), ids, np.full_like(ids, sep)], axis=1)
        feeds = {
            "input_ids": batch,
            "attention_mask": np.ones_like(batch),
            "token_type_ids": np.zeros_like(batch),
        }
        parts.append(session.run(None, feeds)[0])
    table = np.concatenate(parts).astype(np.float32)
    table -= table.mean(axis=0)
    table = table.astype(np.float16)
    tmp = path.with_suffix(".tmp.npy")
    np.save(tmp, table)
    tmp.replace(path)
    return table
