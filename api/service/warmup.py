"""The retriever warmed in the background when the service starts.

A fresh process reads each build's inner nodes the first time a query meets that build: at 150k
passages the first few hundred queries read dozens of builds each, one statement per build.
The service reads them all at start, in bulk, while it already answers (a query that gets there
first reads its builds itself, as before).
"""

from __future__ import annotations

import logging
import threading

from retriever.retriever import Retriever

log = logging.getLogger("overstory.service")


def start_warmup(retriever: Retriever) -> threading.Thread:
    """Warm ``retriever`` in a daemon thread (failures are logged: queries load lazily)."""
    thread = threading.Thread(target=_warm, args=(retriever,), name="overstory-warmup", daemon=True)
    thread.start()
    return thread


def _warm(retriever: Retriever) -> None:
    try:
        retriever.warm()
    except Exception:
        log.warning("warming the retriever failed; queries load what they need", exc_info=True)
    finally:
        retriever.catalog.release_thread()
