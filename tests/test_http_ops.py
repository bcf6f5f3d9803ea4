"""Operations over real HTTP: ``/healthz`` names the catalog it checks, ``/metrics`` parses."""

from __future__ import annotations

from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from indexer.settings import Settings
from tests.http_support import served


def _families(text: str) -> dict[str, dict[tuple[str, frozenset[tuple[str, str]]], float]]:
    """Family name -> (sample name, labels) -> value, as Prometheus' own parser reads them."""
    return {
        f.name: {(s.name, frozenset(s.labels.items())): s.value for s in f.samples}
        for f in text_string_to_metric_families(text)
    }


def _labels(**kv: str) -> frozenset[tuple[str, str]]:
    return frozenset(kv.items())


@pytest.mark.backends
def test_health_names_the_catalog_backend_in_use(
    fast_settings: Settings, catalog_backend: str
) -> None:
    expected = {"sqlite": "sqlite", "postgres": "postgresql"}[catalog_backend]
    with served(fast_settings) as (svc, _):
        r = svc.client.get("/healthz")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["catalog"] == {"backend": expected, "status": "ok"}
    # the older key stays for SQLite stores and is never claimed for PostgreSQL
    assert ("sqlite" in body) is (expected == "sqlite")
    assert body["status"] == "ok" and body["vectors"] == "ok" and body["documents"] == 0


def test_metrics_scraped_over_http_parse_and_count_per_app(tmp_path: Path) -> None:
    first = Settings(store=tmp_path / "a", embedder="hashing")
    second = Settings(store=tmp_path / "b", embedder="hashing")
    with served(first) as (a, _), served(second) as (b, _):
        reader = a.as_role("reader")
        for _ in range(3):
            assert a.client.get("/v1/documents", headers=reader).status_code == 200
        assert a.client.get("/v1/nodes/nope", headers=reader).status_code == 404
        assert b.client.get("/v1/documents").status_code == 401
        r = a.client.get("/metrics")
        other = _families(b.client.get("/metrics").text)
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    got = _families(r.text)

    requests = got["overstory_http_requests"]
    ok = _labels(method="GET", route="/v1/documents", status="200")
    assert requests[("overstory_http_requests_total", ok)] == 3.0
    assert not [k for k in requests if dict(k[1]).get("status") == "401"]  # b's request

    latency = got["overstory_http_request_duration_seconds"]
    route = {"method": "GET", "route": "/v1/documents"}
    assert latency[("overstory_http_request_duration_seconds_count", _labels(**route))] == 3.0
    buckets = sorted(
        (float(dict(labels)["le"]), value)
        for (name, labels), value in latency.items()
        if name.endswith("_bucket") and {k: v for k, v in labels if k != "le"} == route
    )
    assert len(buckets) == 12 and buckets[-1] == (float("inf"), 3.0)
    assert [v for _, v in buckets] == sorted(v for _, v in buckets)  # cumulative
    assert not any(name.endswith("_created") for f in got.values() for name, _ in f)

    assert got["overstory_documents"][("overstory_documents", frozenset())] == 0.0
    assert "overstory_jobs" in got and "overstory_nodes" in got
    refused = [
        v for (_, k), v in other["overstory_http_requests"].items() if ("status", "401") in k
    ]
    assert refused == [1.0]
