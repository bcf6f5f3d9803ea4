"""Concurrent calls coalesced into batches, with no waiting window.

Eight chatbot requests on two cores spend most of their time encoding their queries, one
forward pass each, every pass paying the model's per-call overhead and holding the GIL between
its operators. A :class:`Coalescer` lets whoever arrives while no batch is running run one at
once (a lone query waits for nothing); calls that arrive meanwhile queue up, and when the
running batch ends one of them takes the whole queue as the next batch. Batches therefore grow
exactly as far as the load makes requests overlap.

A batched forward pass pads its queries to the longest and multiplies matrices of another
shape, so a query's vector can differ from its lone encoding by float rounding (about 1e-7
per component); rankings break exact ties by stable keys, never by such noise.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MAX_BATCH = 16


class _Slot(Generic[T, R]):
    """One waiting call: its input, and its output or error once its batch ran."""

    __slots__ = ("done", "error", "item", "result")

    def __init__(self, item: T) -> None:
        self.item = item
        self.result: R | None = None
        self.error: BaseException | None = None
        self.done = False


class Coalescer(Generic[T, R]):
    """``coalescer(item)`` is ``run([item])[0]``, with concurrent calls run as one batch.

    Thread-safe. ``run`` is called by one thread at a time, with at most ``max_batch`` items in
    arrival order, and must return one result per item in the same order; its exception is
    raised in every call of that batch.
    """

    def __init__(
        self, run: Callable[[list[T]], Iterable[R]], *, max_batch: int = MAX_BATCH
    ) -> None:
        if max_batch < 1:
            raise ValueError("max_batch must be at least 1")
        self._run = run
        self.max_batch = max_batch
        self._pending: list[_Slot[T, R]] = []
        self._running = False
        self._cond = threading.Condition()
        self.batches = 0
        self.items = 0

    @property
    def waiting(self) -> int:
        """Calls queued behind the running batch."""
        with self._cond:
            return len(self._pending)

    def __call__(self, item: T) -> R:
        slot: _Slot[T, R] = _Slot(item)
        with self._cond:
            self._pending.append(slot)
            while self._running and not slot.done:
                self._cond.wait()
            if not slot.done:
                self._running = True
        if not slot.done:
            self._lead(slot)
        if slot.error is not None:
            raise slot.error
        return slot.result  # type: ignore[return-value]

    def _lead(self, mine: _Slot[T, R]) -> None:
        """Run queued batches until ``mine`` ran, then hand the queue to a waiting caller."""
        try:
            while not mine.done:
                with self._cond:
                    batch = self._pending[: self.max_batch]
                    del self._pending[: self.max_batch]
                self._run_batch(batch)
        finally:
            with self._cond:
                self._running = False
                self._cond.notify_all()

    def _run_batch(self, batch: list[_Slot[T, R]]) -> None:
        try:
            results = list(self._run([s.item for s in batch]))
            if len(results) != len(batch):
                raise RuntimeError(f"a batch of {len(batch)} gave {len(results)} results")
        except BaseException as exc:  # every caller of the batch sees the failure
            for s in batch:
                s.error = exc
        else:
            for s, r in zip(batch, results, strict=True):
                s.result = r
        with self._cond:
            self.batches += 1
            self.items += len(batch)
            for s in batch:
                s.done = True
            self._cond.notify_all()
