"""Short cluster labels: the dominant heading path and the terms that set a cluster apart.

Terms are ranked by class-based TF-IDF (each cluster's sample of texts is one "document"): a term
frequent in this cluster and rare in the others ranks first.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter

import numpy as np
from scipy import sparse

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]{2,}")
_STOPWORD_TEXT = """
    about above after again against all also although always among and any are around because
    been before being below between both but can cannot could did does doing done down during
    each either else even every few for from further had has have having her here hers him his
    how however into its itself just least less like made make many may might more most much
    must near need needs never not now off often once one only onto other others our out over
    own per rather same several she should since some such than that the their them then there
    these they this those though three through thus too two under until upon use used uses using
    very via was were what when where whether which while who whom whose why will with within
    without would yet you your first second also can each must into only then well still get
    gets keep keeps let lets see set sets way ways new
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


class HeadingPaths:
    """The distinct heading paths of a scope, to find each cluster's dominant one quickly."""

    def __init__(self, raw_paths: list[str]) -> None:
        prefix_id: dict[tuple[str, ...], int] = {}
        rows: list[int] = []
        cols: list[int] = []
        for row, raw in enumerate(raw_paths):
            path = tuple(str(p) for p in json.loads(raw))
            for depth in range(1, len(path) + 1):
                rows.append(row)
                cols.append(prefix_id.setdefault(path[:depth], len(prefix_id)))
        self.prefixes = list(prefix_id)
        self.depth = np.array([len(p) for p in self.prefixes], dtype=np.int64)
        self._member_of = sparse.csr_matrix(
            (np.ones(len(rows), dtype=np.int64), (rows, cols)),
            shape=(len(raw_paths), len(self.prefixes)),
        )

    def dominant(self, counts: np.ndarray) -> list[str]:
        """The deepest heading path that at least half of a cluster's members lie under.

        Args:
            counts: How many members have each distinct path (indexed like ``raw_paths``).

        Returns:
            The path (``[]`` when the members share no heading by majority); among equally
            deep paths the most frequent, then the first seen.
        """
        if not self.prefixes:
            return []
        under = np.asarray(self._member_of.T @ counts).ravel()
        ok = 2 * under >= counts.sum()
        if not ok.any():
            return []
        key = np.where(ok, self.depth * (int(counts.sum()) + 1) + under, -1)
        return list(self.prefixes[int(np.argmax(key))])


def top_terms(samples: list[list[str]], *, n: int = 5) -> list[list[str]]:
    """The ``n`` most distinctive terms of each cluster, given a sample of its texts.

    Args:
        samples: For each cluster, texts of some of its members.
        n: Terms per cluster.

    Returns:
        One list of terms per cluster, most distinctive first.
    """
    counts = [_terms(" ".join(texts)) for texts in samples]
    total: Counter[str] = Counter()
    for c in counts:
        total.update(c)
    if not total:
        return [[] for _ in samples]
    avg = sum(total.values()) / max(len(counts), 1)
    out = []
    for c in counts:
        size = max(sum(c.values()), 1)
        scored = [
            ((cnt / size) * math.log(1.0 + avg / total[t]), t) for t, cnt in c.items() if cnt > 1
        ]
        ranked = [t for _, t in sorted(scored, key=lambda st: (-st[0], st[1]))]
        if len(ranked) < n:
            extra = sorted((t for t in c if t not in ranked), key=lambda t: (-c[t], t))
            ranked.extend(extra)
        out.append(ranked[:n])
    return out


def label_text(path: list[str], terms: list[str]) -> str:
    """``"4 Maintenance › 4.2 Seals — seal, face, gland"``; either part may be empty."""
    parts = [" › ".join(path)] if path else []
    if terms:
        parts.append(", ".join(terms))
    return " — ".join(parts) if parts else "(untitled)"


def _terms(text: str) -> Counter[str]:
    counts = Counter(_WORD.findall(text.lower()))
    for word in STOPWORDS.intersection(counts):
        del counts[word]
    return counts
