"""Progress events of long work (ingest), for a CLI bar or an HTTP job record."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO


@dataclass
class ProgressEvent:
    """``done`` of ``total`` units of ``stage`` for one document."""

    doc_id: str
    # parse | embed | summarize | store: one document's stages, each timed on its own;
    # files: documents done of a multi-file ingest (doc_id: the one just finished or next)
    stage: str
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
        # (started, last line written) of the current document stage and of the files
        self._times: dict[str, tuple[float, float]] = {}

    def __call__(self, ev: ProgressEvent) -> None:
        now = self._clock()
        key = "files" if ev.stage == "files" else "stage"
        if ev.stage == "files":
            if ev.done == 0 or key not in self._times:
                self._times[key] = (now, float("-inf"))
        elif (ev.doc_id, ev.stage) != self._stage or ev.done == 0:
            self._stage = (ev.doc_id, ev.stage)
            self._times[key] = (now, float("-inf"))
        started, last = self._times[key]
        finished = ev.total > 0 and ev.done >= ev.total
        if not finished and now - last < self._interval:
            return
        self._times[key] = (started, now)
        elapsed = now - started
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
        if ev.stage == "files":
            line = f"files {ev.done}/{ev.total}"
        if rate is not None:
            line += f" {rate:.1f}/s"
        if eta is not None and ev.done < ev.total:
            line += f" eta {_duration(eta)}"
        return line + f" elapsed {_duration(elapsed)}"


class ProgressBars:
    """A progress sink for a terminal: a bar for the stage running now and one for the files.

    Each stage of each document gets a fresh bar, so its rate and elapsed time are that
    stage's own; the files bar (from ``files`` events: an ingest of several files) counts the
    documents done of all, with its rate and the time left. Call :meth:`close` at the end.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._files: Any = None
        self._stage: Any = None
        self._key: tuple[str, str] | None = None

    def __call__(self, ev: ProgressEvent) -> None:
        from tqdm import tqdm

        if ev.stage == "files":
            if self._files is None:
                self._files = tqdm(
                    total=ev.total, unit="file", desc="files", position=0, file=self._stream,
                    dynamic_ncols=True,
                )  # fmt: skip
            self._files.n = ev.done
            self._files.refresh()
            return
        key = (ev.doc_id, ev.stage)
        if key != self._key or ev.done == 0 or self._stage is None:
            if self._stage is not None:
                self._stage.close()
            self._key = key
            self._stage = tqdm(
                total=ev.total, unit="step", desc=f"{ev.doc_id} {ev.stage}", leave=False,
                position=1 if self._files is not None else 0, file=self._stream,
                dynamic_ncols=True,
            )  # fmt: skip
        self._stage.total = ev.total
        self._stage.n = ev.done
        self._stage.set_postfix(calls=ev.summarizer_calls, hits=ev.cache_hits, refresh=False)
        self._stage.refresh()

    @property
    def stage_bar(self) -> Any:
        """The bar of the stage running now (None before the first event)."""
        return self._stage

    @property
    def files_bar(self) -> Any:
        """The bar of the files (None unless several files are ingested)."""
        return self._files

    def close(self) -> None:
        """Close the bars (the terminal keeps the files bar's last line)."""
        for bar in (self._stage, self._files):
            if bar is not None:
                bar.close()


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"
