"""Progress events of long work (ingest), for a CLI bar or an HTTP job record."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO


@dataclass
class ProgressEvent:
    """``done`` of ``total`` units of ``stage`` for one document."""

    doc_id: str
    stage: str  # parse | embed | summarize | store
    done: int
    total: int
    summarizer_calls: int = 0
    cache_hits: int = 0


ProgressFn = Callable[[ProgressEvent], None]


def no_progress(_: ProgressEvent) -> None:
    """A progress sink that ignores everything."""


class ProgressLines:
    """A progress sink writing one line per step worth reporting, for logs and pipes.

    Where no terminal shows a bar (stderr redirected, a CI log, a job runner), long work must
    still say what it is doing: a line when a stage starts and ends, and at most one every
    ``interval`` seconds in between, with the rate and the time left. With ``as_json`` each line
    is a JSON object (``{"event": "progress", "doc_id", "stage", "done", "total", "rate",
    "eta_s", "elapsed_s"}``), for tools that read them.
    """

    def __init__(
        self,
        stream: TextIO,
        *,
        as_json: bool = False,
        interval: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream
        self._as_json = as_json
        self._interval = interval
        self._clock = clock
        self._stage: tuple[str, str] | None = None
        self._started = 0.0
        self._last = 0.0

    def __call__(self, ev: ProgressEvent) -> None:
        now = self._clock()
        stage = (ev.doc_id, ev.stage)
        if stage != self._stage:
            self._stage, self._started, self._last = stage, now, float("-inf")
        finished = ev.total > 0 and ev.done >= ev.total
        if not finished and now - self._last < self._interval:
            return
        self._last = now
        elapsed = now - self._started
        rate = ev.done / elapsed if elapsed > 0 and ev.done else None
        eta = (ev.total - ev.done) / rate if rate and ev.total >= ev.done else None
        self._stream.write(self._format(ev, elapsed=elapsed, rate=rate, eta=eta) + "\n")
        self._stream.flush()

    def _format(
        self, ev: ProgressEvent, *, elapsed: float, rate: float | None, eta: float | None
    ) -> str:
        if self._as_json:
            return json.dumps(
                {
                    "event": "progress",
                    "doc_id": ev.doc_id,
                    "stage": ev.stage,
                    "done": ev.done,
                    "total": ev.total,
                    "rate": round(rate, 2) if rate is not None else None,
                    "eta_s": round(eta, 1) if eta is not None else None,
                    "elapsed_s": round(elapsed, 1),
                    "summarizer_calls": ev.summarizer_calls,
                    "cache_hits": ev.cache_hits,
                }
            )
        line = f"{ev.doc_id} {ev.stage} {ev.done}/{ev.total}"
        if rate is not None:
            line += f" {rate:.1f}/s"
        if eta is not None and ev.done < ev.total:
            line += f" eta {_duration(eta)}"
        return line + f" elapsed {_duration(elapsed)}"


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"
