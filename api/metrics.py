"""A tiny in-process metrics registry rendered in the Prometheus text format (version 0.0.4).

Only what ``/metrics`` needs: request counts by method, route and status, request latency
histograms by method and route, and gauges computed at scrape time.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterable

BUCKETS: tuple[float, ...] = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(pairs: Iterable[tuple[str, str]]) -> str:
    inner = ",".join(f'{k}="{_escape(v)}"' for k, v in pairs)
    return "{" + inner + "}" if inner else ""


class Metrics:
    """HTTP request counters and latency histograms."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: dict[tuple[str, str, str], int] = defaultdict(int)
        self._buckets: dict[tuple[str, str], list[int]] = {}
        self._sum: dict[tuple[str, str], float] = defaultdict(float)
        self._count: dict[tuple[str, str], int] = defaultdict(int)

    def observe(self, *, method: str, route: str, status: int, seconds: float) -> None:
        """Count one finished request."""
        with self._lock:
            self._requests[(method, route, str(status))] += 1
            key = (method, route)
            counts = self._buckets.setdefault(key, [0] * len(BUCKETS))
            for i, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    counts[i] += 1
            self._sum[key] += seconds
            self._count[key] += 1

    def render(self, gauges: dict[str, tuple[str, list[tuple[dict[str, str], float]]]]) -> str:
        """The exposition text; ``gauges`` maps a name to its help and labelled samples."""
        out: list[str] = [
            "# HELP overstory_http_requests_total HTTP requests by method, route and status.",
            "# TYPE overstory_http_requests_total counter",
        ]
        with self._lock:
            for (method, route, status), n in sorted(self._requests.items()):
                labels = _labels([("method", method), ("route", route), ("status", status)])
                out.append(f"overstory_http_requests_total{labels} {n}")
            out += [
                "# HELP overstory_http_request_duration_seconds HTTP request latency.",
                "# TYPE overstory_http_request_duration_seconds histogram",
            ]
            for key in sorted(self._buckets):
                method, route = key
                base = [("method", method), ("route", route)]
                for bound, n in zip(BUCKETS, self._buckets[key], strict=True):
                    labels = _labels([*base, ("le", repr(bound))])
                    out.append(f"overstory_http_request_duration_seconds_bucket{labels} {n}")
                labels = _labels([*base, ("le", "+Inf")])
                out.append(
                    f"overstory_http_request_duration_seconds_bucket{labels} {self._count[key]}"
                )
                out.append(
                    f"overstory_http_request_duration_seconds_sum{_labels(base)} "
                    f"{self._sum[key]:.6f}"
                )
                out.append(
                    f"overstory_http_request_duration_seconds_count{_labels(base)} "
                    f"{self._count[key]}"
                )
        for name, (help_text, samples) in gauges.items():
            out.append(f"# HELP {name} {help_text}")
            out.append(f"# TYPE {name} gauge")
            for sample_labels, value in samples:
                out.append(f"{name}{_labels(sorted(sample_labels.items()))} {value:g}")
        return "\n".join(out) + "\n"
