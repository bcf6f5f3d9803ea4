"""Every error leaves the service as ``{"error": {"code", "message", "detail"}}`` (pinned here)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from indexer.errors import OverstoryError
from indexer.settings import Settings
from tests.http_support import Service, service


def _all_errors(cls: type[OverstoryError] = OverstoryError) -> Iterator[type[OverstoryError]]:
    yield cls
    for sub in cls.__subclasses__():
        yield from _all_errors(sub)


# Imported so that their error classes are part of the hierarchy walked below.
import api.routes.health  # noqa: E402,F401
import api.service.jobs  # noqa: E402,F401

ERRORS = {cls.__name__: cls for cls in _all_errors()}


def assert_canonical(body: Any, code: str) -> dict[str, Any]:
    """The one error shape: exactly these keys, a code, a non-empty message."""
    assert set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"code", "message", "detail"}, error
    assert error["code"] == code
    assert isinstance(error["message"], str) and error["message"]
    return dict(error)


class Echo(BaseModel):
    n: int


@pytest.fixture
def svc(tmp_path: Any) -> Iterator[Service]:
    with service(Settings(store=tmp_path / "store", embedder="hashing")) as s:

        def raise_named(name: str) -> None:
            raise ERRORS[name](f"{name} raised on purpose", detail={"name": name})

        def boom() -> None:
            raise RuntimeError("a bug")

        def echo(body: Echo) -> dict[str, int]:
            return {"n": body.n}

        s.app.add_api_route("/_test/raise/{name}", raise_named)
        s.app.add_api_route("/_test/boom", boom)
        s.app.add_api_route("/_test/echo", echo, methods=["POST"])
        yield s


def test_the_hierarchy_is_walked(svc: Service) -> None:
    assert {
        "NotFoundError",
        "ForbiddenError",
        "TooLargeError",
        "TooManyJobsError",
        "UnavailableError",
    } <= set(ERRORS)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_every_overstory_error_maps_to_its_status_and_code(svc: Service, name: str) -> None:
    cls = ERRORS[name]
    r = svc.client.get(f"/_test/raise/{name}")
    assert r.status_code == cls.status
    assert r.headers["content-type"] == "application/json"
    error = assert_canonical(r.json(), cls.code)
    assert error["message"] == f"{name} raised on purpose"
    assert error["detail"] == {"name": name}


def test_validation_error_is_422_invalid_request(svc: Service) -> None:
    r = svc.client.post("/_test/echo", json={"n": "not a number"})
    assert r.status_code == 422
    error = assert_canonical(r.json(), "invalid_request")
    assert error["message"].startswith("body.n:")
    assert error["detail"][0]["loc"] == ["body", "n"]


def test_malformed_json_is_422(svc: Service) -> None:
    r = svc.client.post(
        "/_test/echo", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert r.status_code == 422
    assert_canonical(r.json(), "invalid_request")


def test_unknown_route_is_404_and_wrong_method_405(svc: Service) -> None:
    r = svc.client.get("/nowhere")
    assert r.status_code == 404
    assert assert_canonical(r.json(), "not_found")["message"] == "no route GET /nowhere"
    r = svc.client.put("/healthz")
    assert r.status_code == 405
    assert_canonical(r.json(), "method_not_allowed")
    assert "GET" in r.headers["allow"]


def test_unexpected_exception_is_500_internal_without_the_traceback(svc: Service) -> None:
    r = svc.client.get("/_test/boom")
    assert r.status_code == 500
    error = assert_canonical(r.json(), "internal")
    assert "a bug" not in r.text and "Traceback" not in r.text
    assert error["detail"]["incident"] in error["message"]


def test_no_key_is_401_and_wrong_role_403(svc: Service) -> None:
    r = svc.client.get("/v1/documents")
    assert r.status_code == 401
    assert r.headers["www-authenticate"] == "Bearer"
    assert_canonical(r.json(), "unauthorized")
    r = svc.client.get("/v1/documents", headers={"Authorization": "Basic dXNlcjpwdw=="})
    assert r.status_code == 401
    r = svc.client.get("/v1/keys", headers=svc.as_role("editor"))
    assert r.status_code == 403
    error = assert_canonical(r.json(), "forbidden")
    assert error["detail"] == {"role": "editor", "required": "admin"}


def test_too_large_body_is_413(svc: Service) -> None:
    r = svc.client.post("/v1/keys", headers=svc.as_role("admin"), content=b"x" * (2 * 1024 * 1024))
    assert r.status_code == 413
    assert_canonical(r.json(), "too_large")
