"""Keeping the objects a served process loads once out of the cycle collector's way.

The first query in a process imports the encoder's libraries and loads the model, the BM25
index and the models of the mix: about half a million objects that live as long as the process.
CPython's cycle collector walks all of them on every full collection, and the first full one
comes a few queries later, when a query loads the headings of builds it has not touched yet:
measured on the retriever benchmark's store, that query took 640 ms, 510 ms of it in one
collection, and 74 ms with the loaded objects frozen. :func:`settle` moves everything alive to
the collector's permanent generation (``gc.freeze``) once, after the first query; objects made
later are collected as before, and frozen ones are still freed by reference counting.
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()
_settled = False


def settle() -> None:
    """Freeze the objects alive now, the first time it is called in a process."""
    global _settled
    if _settled:
        return
    with _lock:
        if not _settled:
            gc.freeze()
            _settled = True
