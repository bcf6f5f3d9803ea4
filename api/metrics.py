"""The service's Prometheus metrics, kept and rendered by ``prometheus_client``.

Request counts by method, route and status, request latency histograms by method and route,
and gauges computed at scrape time. Each app has its own registry (not the library's global
one), so several apps in one process, as the tests make, count apart.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric

BUCKETS: tuple[float, ...] = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

Gauges = dict[str, tuple[str, list[tuple[dict[str, str], float]]]]


class Metrics:
    """HTTP request counters and latency histograms."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._requests = Counter(
            "overstory_http_requests",
            "HTTP requests by method, route and status.",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self._latency = Histogram(
            "overstory_http_request_duration_seconds",
            "HTTP request latency.",
            ["method", "route"],
            buckets=BUCKETS,
            registry=self.registry,
        )

    def observe(self, *, method: str, route: str, status: int, seconds: float) -> None:
        """Count one finished request."""
        self._requests.labels(method=method, route=route, status=str(status)).inc()
        self._latency.labels(method=method, route=route).observe(seconds)

    def render(self, gauges: Gauges) -> str:
        """The exposition text (format 0.0.4); ``gauges`` maps a name to its help and samples."""
        return generate_latest(_Scrape(self.registry, gauges)).decode("utf-8")


class _Scrape:
    """One scrape: the registry's metrics, then the gauges computed for it."""

    def __init__(self, registry: CollectorRegistry, gauges: Gauges) -> None:
        self._registry = registry
        self._gauges = gauges

    def collect(self) -> Iterator[Metric]:
        for family in self._registry.collect():
            # The ``_created`` timestamps say when a label set first appeared: noise here.
            family.samples = [s for s in family.samples if not s.name.endswith("_created")]
            yield family
        for name, (help_text, samples) in self._gauges.items():
            labels = sorted(samples[0][0]) if samples else []
            gauge = GaugeMetricFamily(name, help_text, labels=labels)
            for sample_labels, value in samples:
                gauge.add_metric([sample_labels[k] for k in labels], value)
            yield gauge
