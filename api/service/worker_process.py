"""``overstory worker``: a process that only runs ingestion jobs, until SIGTERM or SIGINT."""

from __future__ import annotations

import logging
import signal
import threading
from types import FrameType

from api.service.job_worker import worker_name
from api.service.jobs import JobRunner
from api.service.wiring import open_stack
from indexer.settings import Settings

log = logging.getLogger(__name__)


def run_worker(
    settings: Settings,
    *,
    concurrency: int,
    worker_id: str | None = None,
    stop_timeout: float = 60.0,
) -> None:
    """Consume the catalog's job queue on ``concurrency`` threads until a signal.

    SIGTERM (or Ctrl-C) stops claiming, lets running jobs finish for up to ``stop_timeout``
    seconds and gives the ones still running back to the queue, so another worker resumes them
    at once rather than after their lease runs out.
    """
    stack = open_stack(settings, queries=False)
    runner = JobRunner(stack.index, worker=worker_id or worker_name("worker", settings))
    # The vector store now: a Chroma server that does not answer fails the start.
    _ = stack.index.vectors
    stopping = threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        log.info("signal %d: stopping after the running jobs", signum)
        stopping.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        recovered = runner.consume(concurrency)
        log.info(
            "worker %s consuming on %d thread(s); %d job(s) queued, %d failed as interrupted",
            runner.worker,
            concurrency,
            len(recovered["resumed"]),
            len(recovered["interrupted"]),
        )
        stopping.wait()
    finally:
        runner.stop(timeout=stop_timeout, release=True)
        for s, handler in previous.items():
            signal.signal(s, handler)
        stack.index.close()
    log.info("worker %s stopped", runner.worker)
