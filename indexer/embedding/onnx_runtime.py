"""all-MiniLM-L6-v2 on ONNX Runtime: the same vectors as sentence-transformers, without torch.

Texts are tokenized with ``tokenizers`` (the model's own ``tokenizer.json``, truncated at the
model's 256 tokens as sentence-transformers does), sorted by length so that a batch pads
little, and run through the exported graph (:mod:`indexer.embedding.onnx_export`), which pools
and normalizes. fp32 vectors equal the torch ones to a cosine of 0.99999 and share their
identity; int8 vectors are close but not equal, so they are an encoder of their own.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from indexer.embedding.onnx_export import INPUTS, ensure
from indexer.tokens import model_dir

MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)
BASE_NAME = "all-MiniLM-L6-v2"


def encoder_name(precision: str) -> str:
    """The identity stored with vectors: fp32 ONNX and torch vectors are one encoder."""
    return BASE_NAME if precision == "fp32" else f"{BASE_NAME}/{precision}"


class OnnxMiniLMEmbedder:
    """MiniLM through ONNX Runtime; the session is created on first use."""

    dim = 384

    def __init__(
        self, *, folder: Path, precision: str = "fp32", threads: int = 1, batch_size: int = 32
    ) -> None:
        self.folder = folder
        self.precision = precision
        self.name = encoder_name(precision)
        self.threads = threads
        self.batch_size = batch_size
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._session is None:
                import onnxruntime as ort
                from tokenizers import Tokenizer

                path = ensure(self.folder, self.precision)
                options = ort.SessionOptions()
                options.intra_op_num_threads = self.threads
                options.inter_op_num_threads = 1
                options.log_severity_level = 3
                tokenizer = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
                tokenizer.enable_truncation(max_length=MAX_TOKENS)
                tokenizer.no_padding()
                self._tokenizer = tokenizer
                self._session = ort.InferenceSession(
                    str(path), options, providers=["CPUExecutionProvider"]
                )
        return self._session, self._tokenizer

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of ``texts``, float32, in their order."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        session, tokenizer = self._load()
        encoded = tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i].ids))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            width = max(len(encoded[i].ids) for i in batch)
            arrays = {name: np.zeros((len(batch), width), dtype=np.int64) for name in INPUTS}
            for row, i in enumerate(batch):
                e = encoded[i]
                n = len(e.ids)
                arrays["input_ids"][row, :n] = e.ids
                arrays["attention_mask"][row, :n] = e.attention_mask
                arrays["token_type_ids"][row, :n] = e.type_ids
            out[batch] = session.run(None, arrays)[0]
        return out
