"""Every endpoint against every role: allowed from its role up, refused below (401/403).

The table must name every route of the app: a new route without a row fails
``test_the_table_covers_every_route``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from api.service.keys import ROLES, role_allows
from indexer.settings import Settings
from tests.http_support import FIXTURES, Service, bearer, served_operations, service

DOC = "pump-x200.md"


@dataclass
class Call:
    """One endpoint: what to send, and the role it needs (None: public)."""

    method: str
    route: str  # the route's path template, as the app declares it
    need: str | None
    request: Callable[[Service, dict[str, Any]], tuple[str, dict[str, Any]]]
    ok: tuple[int, ...]  # statuses of an allowed call


def _path(path: str) -> Callable[[Service, dict[str, Any]], tuple[str, dict[str, Any]]]:
    return lambda svc, ctx: (path.format(**ctx), {})


def _upload(svc: Service, ctx: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "/v1/documents", {"files": {"file": ("roles.md", b"# Roles\n\nSome text here.\n")}}


def _new_key(svc: Service, ctx: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "/v1/keys", {"json": {"role": "reader", "name": "made-in-role-test"}}


def _revoke_throwaway(svc: Service, ctx: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    _, record = svc.app.state.keys.create(role="reader", name="throwaway")
    return f"/v1/keys/{record.key_id}", {}


def _query(svc: Service, ctx: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "/v1/query", {"json": {"query": "seal replacement", "k": 3}}


def _context(svc: Service, ctx: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "/v1/context", {"json": {"query": "seal replacement", "budget": 200}}


def _select(svc: Service, ctx: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "/v1/select", {"json": {"k": 3}}


def _review(svc: Service, ctx: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return f"/v1/nodes/{ctx['node']}/review", {"json": {"status": "approved", "note": "roles"}}


TABLE: list[Call] = [
    Call("GET", "/healthz", None, _path("/healthz"), (200,)),
    Call("GET", "/metrics", None, _path("/metrics"), (200,)),
    Call("GET", "/docs", None, _path("/docs"), (200,)),
    Call("GET", "/openapi.json", None, _path("/openapi.json"), (200,)),
    Call("GET", "/v1/check", "admin", _path("/v1/check"), (200,)),
    Call("GET", "/v1/documents", "reader", _path("/v1/documents"), (200,)),
    Call("POST", "/v1/documents", "editor", _upload, (202,)),
    Call("GET", "/v1/documents/{doc_id}/tree", "reader", _path("/v1/documents/{doc}/tree"), (200,)),
    Call("GET", "/v1/documents/{doc_id}/diff", "reader", _path("/v1/documents/{doc}/diff"), (200,)),
    Call(
        "GET",
        "/v1/documents/{doc_id}/revisions",
        "reader",
        _path("/v1/documents/{doc}/revisions"),
        (200,),
    ),
    Call("GET", "/v1/changes", "reader", _path("/v1/changes?since=2000-01-01"), (200,)),
    Call("DELETE", "/v1/documents/{doc_id}", "editor", _path("/v1/documents/no-such.md"), (404,)),
    Call("GET", "/v1/nodes/{node_id}", "reader", _path("/v1/nodes/{node}"), (200,)),
    Call("GET", "/v1/jobs", "editor", _path("/v1/jobs"), (200,)),
    Call("GET", "/v1/jobs/{job_id}", "editor", _path("/v1/jobs/{job}"), (200,)),
    Call("POST", "/v1/jobs/{job_id}/retry", "editor", _path("/v1/jobs/{job}/retry"), (409,)),
    Call("POST", "/v1/keys", "admin", _new_key, (201,)),
    Call("GET", "/v1/keys", "admin", _path("/v1/keys"), (200,)),
    Call("DELETE", "/v1/keys/{key_id}", "admin", _revoke_throwaway, (200,)),
    Call("GET", "/v1/audit/queue", "auditor", _path("/v1/audit/queue"), (200,)),
    Call("POST", "/v1/nodes/{node_id}/review", "auditor", _review, (201,)),
    Call("GET", "/v1/audit/log", "auditor", _path("/v1/audit/log"), (200,)),
    Call(
        "GET",
        "/v1/nodes/{node_id}/source-diff",
        "auditor",
        _path("/v1/nodes/{node}/source-diff"),
        (200,),
    ),
    Call("POST", "/v1/query", "reader", _query, (200,)),
    Call("POST", "/v1/context", "reader", _context, (200,)),
    Call("POST", "/v1/select", "reader", _select, (200,)),
]
PRINCIPALS = [None, "invalid", "revoked", *ROLES]


pytestmark = pytest.mark.backends


@pytest.fixture(scope="module")
def ctx(
    tmp_path_factory: pytest.TempPathFactory, module_database_url: str
) -> Iterator[tuple[Service, dict[str, Any]]]:
    store: Path = tmp_path_factory.mktemp("roles")
    settings = Settings(store=store / "store", embedder="hashing", database_url=module_database_url)
    with service(settings) as svc:
        job = svc.ingest(DOC, (FIXTURES / DOC).read_bytes())
        tree = svc.client.get(f"/v1/documents/{DOC}/tree", headers=svc.as_role("reader")).json()
        revoked, record = svc.app.state.keys.create(role="admin", name="revoked")
        svc.app.state.keys.revoke(record.key_id)
        svc.keys["revoked"] = revoked
        svc.keys["invalid"] = "ovs_00000000_not-a-key"
        yield svc, {"doc": DOC, "node": tree["children"][-1]["node_id"], "job": job["job_id"]}


def _served(svc: Service) -> set[tuple[str, str]]:
    return served_operations(svc.app)


def test_the_table_covers_every_route(ctx: tuple[Service, dict[str, Any]]) -> None:
    svc, _ = ctx
    listed = {(c.method, c.route) for c in TABLE}
    served = _served(svc)
    assert ("POST", "/v1/documents") in served
    missing = served - listed
    assert not missing, f"add these routes to TABLE in {__file__}: {sorted(missing)}"


@pytest.mark.parametrize("principal", PRINCIPALS, ids=[str(p) for p in PRINCIPALS])
@pytest.mark.parametrize("call", TABLE, ids=[f"{c.method} {c.route}" for c in TABLE])
def test_endpoint_by_role(
    ctx: tuple[Service, dict[str, Any]], call: Call, principal: str | None
) -> None:
    svc, values = ctx
    url, kwargs = call.request(svc, values)
    headers = bearer(svc.keys[principal]) if principal else {}
    r = svc.client.request(call.method, url, headers=headers, **kwargs)
    if call.need is None:
        assert r.status_code in call.ok, r.text
        return
    if principal in (None, "invalid", "revoked"):
        assert r.status_code == 401, r.text
        assert r.json()["error"]["code"] == "unauthorized"
    elif not role_allows(principal, call.need):
        assert r.status_code == 403, r.text
        assert r.json()["error"]["detail"] == {"role": principal, "required": call.need}
    else:
        assert r.status_code in call.ok, r.text
