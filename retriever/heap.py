"""Keeping the objects a served process keeps out of the cycle collector's way.

The first query in a process imports the encoder's libraries and loads the model, the BM25
index and the models of the mix: about half a million objects that live as long as the process.
CPython's cycle collector walks all of them on every full collection, and the first full one
comes a few queries later, when a query loads the headings of builds it has not touched yet:
measured on the retriever benchmark's store, that query took 640 ms, 510 ms of it in one
collection, and 74 ms with the loaded objects frozen. :func:`settle` moves everything alive to
the collector's permanent generation (``gc.freeze``) once, after the first query.

The retriever's caches (the inner nodes of every build a query touched, node records) then keep
filling for thousands of queries, and each time the long-lived objects grow by a quarter a full
collection walks them all again: 30–120 ms pauses inside queries at 150k passages, most of the
p99. So the caches report what they keep (:func:`kept`) and :func:`settle` freezes again once
they grew by ``FREEZE_EVERY`` objects, after a young collection so that the finished queries'
cyclic garbage is collected first, not frozen. Growth is net of what the caches drop: full
caches that only replace entries trigger no more freezes. Frozen objects are still freed by
reference counting when a cache drops them (cache entries hold no cycles).
"""

from __future__ import annotations

import gc
import threading

FREEZE_EVERY = 20_000

_lock = threading.Lock()
_settled = False
_grown = 0


def kept(objects: int) -> None:
    """Note that a long-lived cache grew by ``objects`` (negative: it dropped some)."""
    global _grown
    with _lock:
        _grown += objects


def settle() -> None:
    """Freeze the objects alive now: the first time it is called in a process, and again once
    the caches grew by ``FREEZE_EVERY`` objects since the last time."""
    global _settled, _grown
    if _settled and _grown < FREEZE_EVERY:
        return
    with _lock:
        if not _settled:
            gc.freeze()
            _settled, _grown = True, 0
        elif _grown >= FREEZE_EVERY:
            gc.collect(1)
            gc.freeze()
            _grown = 0
