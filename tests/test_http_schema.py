"""Schemathesis against the app's own OpenAPI schema: no 5xx, no response outside the schema.

The real app runs under uvicorn on a loopback port; every operation of its schema gets a few
generated requests, valid and invalid (bounded: ``EXAMPLES`` per operation and mode, no
per-example deadline), sent with an admin key so that they get past authentication. The fast
hashing embedder keeps ingestion cheap.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from indexer.settings import Settings
from tests.http_support import FIXTURES, Service, ThreadServer, served

EXAMPLES = 10
# The schema's `doc-id` format (a relative, slash-separated name), for generating valid ones.
schemathesis.openapi.format(
    "doc-id", st.from_regex(r"\A[a-z0-9][a-z0-9_-]{0,20}(/[a-z0-9_-]{1,12}){0,2}\.md\Z")
)
# What no schema can say of an uploaded file: its type, its size, whether it parses.
CONTENT_REFUSALS = {413, 415, 422}


@schemathesis.check
def valid_data_accepted(ctx: Any, response: Any, case: Any) -> bool | None:
    """``positive_data_acceptance``, except an upload refused for its file's content."""
    if case.operation.label == "POST /v1/documents" and response.status_code in CONTENT_REFUSALS:
        return None
    return positive_data_acceptance(ctx, response, case)


# Valid requests, and requests that break the schema on purpose (which must get a 4xx).
MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    # the schema and the server agree: what it calls invalid is refused, what valid, taken
    negative_data_rejection,
    valid_data_accepted,
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, ThreadServer]]:
    store: Path = tmp_path_factory.mktemp("schema") / "store"
    with served(Settings(store=store, embedder="hashing", max_queued_jobs=4)) as (svc, srv):
        svc.ingest("pump-x200.md", (FIXTURES / "pump-x200.md").read_bytes())
        yield svc, srv


def _operations(url: str) -> list[Any]:
    schema = schemathesis.openapi.from_url(f"{url}/openapi.json")
    return [result.ok() for result in schema.get_all_operations()]


def test_every_operation_conforms_to_the_schema(server: tuple[Service, ThreadServer]) -> None:
    svc, srv = server
    headers = svc.as_role("admin")
    operations = _operations(srv.url)
    assert {op.label for op in operations} >= {
        "POST /v1/documents",
        "GET /v1/documents/{doc_id}/tree",
        "GET /v1/nodes/{node_id}",
        "GET /v1/jobs/{job_id}",
        "GET /healthz",
    }
    failures: dict[str, str] = {}
    for operation, mode in itertools.product(operations, MODES):

        @given(case=operation.as_strategy(mode))
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            derandomize=True,  # the same cases on every run (CI); change EXAMPLES to explore
            suppress_health_check=list(HealthCheck),
        )
        def run(case: Any) -> None:
            case.call_and_validate(base_url=srv.url, headers=headers, checks=CHECKS, timeout=60)

        try:
            run()
        except Unsatisfiable:
            assert mode is GenerationMode.NEGATIVE  # nothing to negate (no parameters)
        except Exception as exc:  # collect every operation's failure, then report them all
            failures[f"{operation.label} ({mode.value})"] = str(exc)[:3000]
    assert not failures, "\n\n".join(f"{k}:\n{v}" for k, v in failures.items())
    # The service is still fine afterwards.
    assert svc.client.get("/healthz").status_code == 200
    assert svc.app.state.index.check()["n_missing"] == 0
