"""Every request body is strict (no coercion, no unknown fields); its limits are in the schema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from indexer.settings import Settings
from tests.http_support import Service, service
from tests.test_error_shape import assert_canonical

DOC = b"# Pump\n\n## 1 Seals\n\nReplace the seal kit every 500 hours of operation.\n"


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    store = tmp_path_factory.mktemp("strict") / "store"
    settings = Settings(store=store, embedder="hashing", max_k=7, max_query_chars=300)
    with service(settings) as s:
        s.app.state.index.ingest_bytes(DOC, doc_id="pump.md")
        yield s


def _post(svc: Service, path: str, body: Any) -> Any:
    return svc.client.post(path, json=body, headers=svc.as_role("admin"))


COERCED = [
    ("/v1/query", {"query": "seal kit", "k": True}),
    ("/v1/query", {"query": "seal kit", "k": "5"}),
    ("/v1/query", {"query": "seal kit", "k": 2.5}),
    ("/v1/query", {"query": "seal kit", "expand": "yes"}),
    ("/v1/query", {"query": "seal kit", "expand": 1}),
    ("/v1/context", {"query": "seal kit", "budget": True}),
    ("/v1/context", {"query": "seal kit", "budget": "500"}),
    ("/v1/context", {"query": "seal kit", "budget": 500.5}),
    ("/v1/select", {"k": True}),
    ("/v1/select", {"k": "2"}),
    ("/v1/select", {"per_cluster": "1"}),
    ("/v1/select", {"budget_tokens": True}),
    ("/v1/keys", {"role": "reader", "name": 5}),
    ("/v1/nodes/nope/review", {"status": "approved", "note": 5}),
]


@pytest.mark.parametrize(("path", "body"), COERCED, ids=[f"{p}-{b}" for p, b in COERCED])
def test_values_of_the_wrong_type_are_not_coerced(svc: Service, path: str, body: Any) -> None:
    r = _post(svc, path, body)
    assert r.status_code == 422, r.text
    assert_canonical(r.json(), "invalid_request")


UNKNOWN = [
    ("/v1/query", {"query": "seal kit", "top_k": 3}),
    ("/v1/select", {"k": 2, "clusters": 3}),
    ("/v1/keys", {"role": "reader", "scope": "all"}),
    ("/v1/nodes/nope/review", {"status": "approved", "verdict": "ok"}),
]


@pytest.mark.parametrize(("path", "body"), UNKNOWN, ids=[p for p, _ in UNKNOWN])
def test_an_unknown_field_is_refused_in_every_json_body(svc: Service, path: str, body: Any) -> None:
    r = _post(svc, path, body)
    assert r.status_code == 422, r.text
    error = assert_canonical(r.json(), "invalid_request")
    assert "xtra" in error["message"] or "unknown" in error["message"], error


def test_an_unknown_form_field_is_refused_in_an_upload(svc: Service) -> None:
    r = svc.client.post(
        "/v1/documents",
        headers=svc.as_role("editor"),
        files={"file": ("x.md", DOC)},
        data={"doc_id": "x.md", "overwrite": "yes"},
    )
    assert r.status_code == 422, r.text
    error = assert_canonical(r.json(), "invalid_request")
    assert "overwrite" in error["message"]
    assert svc.client.get("/v1/jobs", headers=svc.as_role("editor")).json()["jobs"] == []


def test_valid_bodies_still_pass(svc: Service) -> None:
    r = _post(svc, "/v1/query", {"query": "seal kit", "k": 2, "expand": True, "kinds": ["passage"]})
    assert r.status_code == 200, r.text
    assert _post(svc, "/v1/keys", {"role": "reader", "name": "ok"}).status_code == 201


def _body_schema(spec: dict[str, Any], path: str) -> dict[str, Any]:
    content = spec["paths"][path]["post"]["requestBody"]["content"]
    schema = next(iter(content.values()))["schema"]
    if "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return dict(schema)


def test_the_schema_shows_the_store_limits_and_forbids_extra_fields(svc: Service) -> None:
    spec = svc.client.get("/openapi.json").json()
    query = _body_schema(spec, "/v1/query")
    assert query["properties"]["query"]["maxLength"] == 300
    assert query["properties"]["k"]["maximum"] == 7
    select = _body_schema(spec, "/v1/select")
    assert select["properties"]["k"]["anyOf"][0]["maximum"] == 7
    assert select["properties"]["per_cluster"]["maximum"] == 50
    key = _body_schema(spec, "/v1/keys")
    assert key["properties"]["name"]["anyOf"][0]["maxLength"] == 100
    review = _body_schema(spec, "/v1/nodes/{node_id}/review")
    assert review["properties"]["text"]["anyOf"][0]["maxLength"] == 20_000
    for schema in (query, select, key, review):
        assert schema["additionalProperties"] is False, schema
    upload = _body_schema(spec, "/v1/documents")
    assert upload["properties"]["doc_id"]["anyOf"][0]["maxLength"] == 512


def test_a_whole_number_written_with_a_point_is_an_integer(svc: Service) -> None:
    # JSON has one number type, and JSON Schema's "integer" includes 2.0: the schema and the
    # server agree on it (schemathesis checks that they do)
    r = _post(svc, "/v1/query", {"query": "seal kit", "k": 2.0})
    assert r.status_code == 200, r.text
    assert len(r.json()["results"]) <= 2
    assert _post(svc, "/v1/select", {"k": 1.0, "per_cluster": 1.0}).status_code == 200


@pytest.mark.parametrize("path", ["/v1/documents?limt=5", "/v1/jobs?stauts=done"])
def test_an_unknown_query_parameter_is_refused(svc: Service, path: str) -> None:
    r = svc.client.get(path, headers=svc.as_role("admin"))
    assert r.status_code == 422, r.text
    error = assert_canonical(r.json(), "invalid_request")
    assert error["detail"]["unknown"] == [path.split("?")[1].split("=")[0]]
    assert svc.client.get(path.split("?")[0], headers=svc.as_role("admin")).status_code == 200


def test_a_single_query_parameter_given_twice_is_refused(svc: Service) -> None:
    headers = svc.as_role("admin")
    r = svc.client.get("/v1/audit/log?doc_id=a.md&doc_id=b.md", headers=headers)
    assert r.status_code == 422, r.text
    assert assert_canonical(r.json(), "invalid_request")["detail"] == {"repeated": ["doc_id"]}
    # a list parameter takes many
    r = svc.client.get("/v1/audit/queue?doc_id=pump.md&doc_id=pump.md", headers=headers)
    assert r.status_code == 200, r.text
