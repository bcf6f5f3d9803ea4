"""Concurrent calls coalesced into batches: a lone call runs at once, calls that arrive while a
batch runs make the next batch, and the retriever's concurrent queries share encoder passes."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from indexer.embedding.hashing import HashingEmbedder
from indexer.index import Index
from indexer.settings import Settings
from retriever.coalesce import Coalescer
from retriever.retriever import Retriever

DOC = b"""# Pump

## Seals

Replace the shaft seal every 2,000 hours. Torque the gland bolts to 25 N*m.

## Alarms

Error E42 means the inlet pressure is below 0.8 bar. Check the strainer.

## Motor

The motor runs at 2,900 rpm on 400 V. Bearings are greased every 6 months.
"""

QUESTIONS = [
    "how often is the shaft seal replaced",
    "what does error E42 mean",
    "gland bolt torque",
    "motor speed",
    "inlet pressure alarm",
    "bearing grease interval",
    "strainer check",
    "motor voltage",
]


def _wait_until(condition: Callable[[], bool]) -> None:
    """Spin until ``condition`` holds (the threads under test get there without outside help)."""
    event = threading.Event()
    while not condition():
        event.wait(0.001)


class _Gated:
    """A batch function whose first batch waits for ``gate``: later calls queue up meanwhile."""

    def __init__(self, fn: Callable[[list[Any]], list[Any]]) -> None:
        self.fn = fn
        self.batches: list[list[Any]] = []
        self.started = threading.Event()
        self.gate = threading.Event()

    def __call__(self, items: list[Any]) -> list[Any]:
        self.batches.append(list(items))
        if len(self.batches) == 1:
            self.started.set()
            self.gate.wait()
        return self.fn(items)


def test_a_lone_call_runs_at_once_as_a_batch_of_one() -> None:
    c: Coalescer[int, int] = Coalescer(lambda xs: [x * 10 for x in xs])
    assert [c(i) for i in range(3)] == [0, 10, 20]
    assert (c.batches, c.items) == (3, 3)


def test_calls_arriving_during_a_batch_make_the_next_batch() -> None:
    run = _Gated(lambda xs: [x * 10 for x in xs])
    c: Coalescer[int, int] = Coalescer(run)
    with ThreadPoolExecutor(5) as pool:
        first = pool.submit(c, 0)
        run.started.wait()
        rest = [pool.submit(c, i) for i in range(1, 5)]
        _wait_until(lambda: c.waiting == 4)
        run.gate.set()
        results = [first.result(), *(f.result() for f in rest)]
    assert results == [0, 10, 20, 30, 40]
    assert run.batches[0] == [0]
    assert sorted(run.batches[1]) == [1, 2, 3, 4]
    assert len(run.batches) == 2


def test_batches_are_cut_at_max_batch() -> None:
    run = _Gated(lambda xs: [-x for x in xs])
    c: Coalescer[int, int] = Coalescer(run, max_batch=2)
    with ThreadPoolExecutor(6) as pool:
        first = pool.submit(c, 0)
        run.started.wait()
        rest = [pool.submit(c, i) for i in range(1, 6)]
        _wait_until(lambda: c.waiting == 5)
        run.gate.set()
        assert [first.result(), *(f.result() for f in rest)] == [0, -1, -2, -3, -4, -5]
    assert [len(b) for b in run.batches] == [1, 2, 2, 1]


def test_a_failing_batch_fails_each_of_its_calls_and_the_next_batch_runs() -> None:
    def run(xs: list[int]) -> list[int]:
        if 13 in xs:
            raise ValueError("unlucky")
        return xs

    c: Coalescer[int, int] = Coalescer(run)
    with pytest.raises(ValueError, match="unlucky"):
        c(13)
    assert c(7) == 7


def test_a_batch_function_returning_too_few_results_is_an_error() -> None:
    c: Coalescer[int, int] = Coalescer(lambda xs: [])
    with pytest.raises(RuntimeError, match="a batch of 1 gave 0 results"):
        c(1)


class _CountingEmbedder(HashingEmbedder):
    """The hashing embedder, recording each call's batch size; the first query batch waits for
    ``gate`` so that the other clients' queries queue behind it."""

    def __init__(self) -> None:
        super().__init__()
        self.sizes: list[int] = []
        self.started = threading.Event()
        self.gate = threading.Event()
        self.gate.set()

    def embed(self, texts: list[str]) -> np.ndarray:
        self.sizes.append(len(texts))
        if len(self.sizes) == 1:
            self.started.set()
            self.gate.wait()
        return super().embed(texts)


def test_concurrent_queries_share_one_encoder_pass_and_answer_as_alone(tmp_path: Path) -> None:
    index = Index(Settings(store=tmp_path / "store", embedder="hashing"))
    try:
        index.ingest_bytes(DOC, doc_id="pump.md")
        alone = Retriever(index, coalesce=False)
        expected = [alone.query(alone.request(q, k=5)).to_json() for q in QUESTIONS]
        embedder = _CountingEmbedder()
        embedder.gate.clear()
        shared = Retriever(index, embedder=embedder)
        assert shared.encoder is not None
        with ThreadPoolExecutor(len(QUESTIONS)) as pool:
            first = pool.submit(lambda: shared.query(shared.request(QUESTIONS[0], k=5)))
            embedder.started.wait()
            rest = [
                pool.submit(lambda q=q: shared.query(shared.request(q, k=5))) for q in QUESTIONS[1:]
            ]
            _wait_until(lambda: shared.encoder is not None and shared.encoder.waiting == 7)
            embedder.gate.set()
            answers = [first.result().to_json(), *(f.result().to_json() for f in rest)]
        assert embedder.sizes == [1, 7]
        assert answers == expected
    finally:
        index.close()
