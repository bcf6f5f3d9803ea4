"""BM25 postings: bm25s's Lucene variant precomputed per term, built and loaded with numpy."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def lucene_tf(
    counts: np.ndarray, lengths: np.ndarray, *, avg_length: float, k1: float, b: float
) -> np.ndarray:
    """The term-frequency part of Lucene's BM25: ``tf / (tf + k1 * (1 - b + b * len / avg))``.

    Args:
        counts: How often each term occurs in its document.
        lengths: The length (in tokens) of the document of each count.
        avg_length: The mean document length of the collection.
        k1: Term-frequency saturation.
        b: Length normalisation.
    """
    return counts / (counts + k1 * (1.0 - b + b * lengths / avg_length))


_DATA, _INDICES, _INDPTR = "data.csc.index.npy", "indices.csc.index.npy", "indptr.csc.index.npy"
_VOCAB, _PARAMS = "vocab.index.json", "params.index.json"


class Postings:
    """BM25 (bm25s's Lucene variant) as precomputed per-term postings, built vectorized from flat
    token arrays and scored with one ``bincount``.

    Saved in bm25s's file layout (``bm25s.BM25.load`` reads it, and this reads what bm25s
    saved), but built and loaded with numpy alone: importing bm25s imports scipy, which cost a
    cold ``overstory query`` about half a second.
    """

    def __init__(self, *, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self.data = np.zeros(0, dtype=np.float32)
        self.indices = np.zeros(0, dtype=np.int32)
        self.indptr = np.zeros(1, dtype=np.int64)
        self.num_docs = 0
        self.vocab_dict: dict[str, int] = {}

    def index_pairs(
        self,
        *,
        docs: np.ndarray,
        tokens: np.ndarray,
        counts: np.ndarray,
        lengths: np.ndarray,
        vocab: dict[str, int],
    ) -> None:
        """Index documents given as ``(doc, token, count)`` triples, grouped by doc."""
        n_docs, n_vocab = len(lengths), max(len(vocab), 1)
        df = np.bincount(tokens, minlength=n_vocab)
        idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))  # Lucene idf, as bm25s
        avg = float(lengths.mean()) if n_docs else 1.0
        tfc = lucene_tf(
            counts.astype(np.float64),
            lengths[docs].astype(np.float64),
            avg_length=avg or 1.0,
            k1=self.k1,
            b=self.b,
        )
        order = np.argsort(tokens, kind="stable")  # postings by token, docs ascending
        self.data = (tfc * idf[tokens])[order].astype(np.float32)
        self.indices = docs[order].astype(np.int32)
        self.indptr = np.concatenate([[0], np.cumsum(df)]).astype(np.int64)
        self.num_docs = n_docs
        self.vocab_dict = dict(vocab)

    def scores_of(self, token_ids: list[int]) -> np.ndarray:
        """BM25 score of every document for a query of these (distinct) token ids.

        Added one posting list at a time: a document occurs once in a term's list, so the
        fancy-indexed add is exact, and it sums each document's terms in the same order as one
        ``bincount`` over the concatenated lists would (the same floats), without the int64 and
        float64 copies of every posting that ``bincount`` makes (0.7 ms instead of 1.9 ms for a
        typical question at 150k passages).
        """
        out = np.zeros(self.num_docs, dtype=np.float64)
        indptr, indices, data = self.indptr, self.indices, self.data
        for t in token_ids:
            a, b = int(indptr[t]), int(indptr[t + 1])
            out[indices[a:b]] += data[a:b]
        return out

    def save(self, folder: Path) -> None:
        """Write the postings to ``folder`` (bm25s's layout and parameters)."""
        folder.mkdir(parents=True, exist_ok=True)
        np.save(folder / _DATA, self.data, allow_pickle=False)
        np.save(folder / _INDICES, self.indices, allow_pickle=False)
        np.save(folder / _INDPTR, self.indptr, allow_pickle=False)
        (folder / _VOCAB).write_text(
            json.dumps(self.vocab_dict, ensure_ascii=False), encoding="utf-8"
        )
        params = {
            "k1": self.k1,
            "b": self.b,
            "delta": 0.5,
            "method": "lucene",
            "idf_method": "lucene",
            "dtype": "float32",
            "int_dtype": "int32",
            "num_docs": self.num_docs,
            "backend": "numpy",
        }
        (folder / _PARAMS).write_text(json.dumps(params, indent=4), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> Postings:
        """Read postings saved by :meth:`save` (or by ``bm25s.BM25.save`` with the Lucene method).

        Raises:
            ValueError: The folder holds another BM25 variant.
        """
        params = json.loads((folder / _PARAMS).read_text(encoding="utf-8"))
        if params.get("method", "lucene") != "lucene":
            raise ValueError(f"unsupported BM25 method {params.get('method')!r}")
        out = cls(k1=float(params["k1"]), b=float(params["b"]))
        out.data = np.load(folder / _DATA, allow_pickle=False)
        out.indices = np.load(folder / _INDICES, allow_pickle=False)
        out.indptr = np.load(folder / _INDPTR, allow_pickle=False)
        out.num_docs = int(params["num_docs"])
        out.vocab_dict = json.loads((folder / _VOCAB).read_text(encoding="utf-8"))
        return out
