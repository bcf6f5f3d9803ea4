"""One doc_id normalization for the CLI and HTTP: bad forms refused, odd ones made canonical."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from api.cli import main
from indexer.doc_ids import normalize_doc_id
from indexer.errors import InvalidRequestError
from indexer.settings import Settings
from tests.http_support import Service, service

DOC = b"# Pump\n\n## 1 Seals\n\nReplace the seal kit every 500 hours of operation.\n"

NORMALIZED = [
    ("./x.md", "x.md"),
    ("a//b.md", "a/b.md"),
    ("a\\b.md", "a/b.md"),
    ("a/./b.md/", "a/b.md"),
]
REFUSED = [
    ("..\\..\\x.md", ".."),
    ("../x.md", ".."),
    ("a/../../x.md", ".."),
    ("/etc/x.md", "absolute"),
    ("\\\\server\\share\\x.md", "absolute"),
    ("C:\\manuals\\x.md", "drive letter"),
    ("c:x.md", "drive letter"),
    ("a\x01b.md", "control characters"),
    ("a\tb.md", "control characters"),
    ("./", "empty"),
    ("x" * 600 + ".md", "limit"),
]


@pytest.mark.parametrize(("raw", "expected"), NORMALIZED)
def test_odd_forms_are_made_canonical(raw: str, expected: str) -> None:
    assert normalize_doc_id(raw) == expected


@pytest.mark.parametrize(("raw", "words"), REFUSED)
def test_bad_forms_are_refused(raw: str, words: str) -> None:
    with pytest.raises(InvalidRequestError, match=words):
        normalize_doc_id(raw)


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    store = tmp_path_factory.mktemp("doc-ids") / "store"
    with service(Settings(store=store, embedder="hashing")) as s:
        yield s


def _jobs(svc: Service) -> int:
    return len(svc.client.get("/v1/jobs", headers=svc.as_role("editor")).json()["jobs"])


@pytest.mark.parametrize(("raw", "words"), REFUSED)
def test_http_upload_refuses_bad_doc_ids(svc: Service, raw: str, words: str) -> None:
    before = _jobs(svc)
    r = svc.upload("ok.md", DOC, doc_id=raw)
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "invalid_request"
    assert _jobs(svc) == before


@pytest.mark.parametrize(("raw", "expected"), NORMALIZED)
def test_http_upload_normalizes_doc_ids(svc: Service, raw: str, expected: str) -> None:
    job = svc.ingest("ok.md", DOC, doc_id=raw)
    assert job["doc_id"] == expected
    docs = svc.client.get("/v1/documents", headers=svc.as_role("reader")).json()["documents"]
    assert {d["doc_id"]: d["source"] for d in docs}[expected] == expected
    assert all(".." not in d["doc_id"] and "//" not in d["doc_id"] for d in docs)
    r = svc.client.get(
        "/v1/documents/" + raw.replace("\\", "%5C") + "/tree", headers=svc.as_role("reader")
    )
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    "path", ["..%5C..%5Cx.md", "%2E%2E/x.md", "a/%2E%2E/%2E%2E/x.md", "C:%5Cx.md"]
)
def test_http_document_routes_refuse_bad_doc_ids(svc: Service, path: str) -> None:
    svc.ingest("x.md", DOC)
    for method, suffix in (("DELETE", ""), ("GET", "/tree"), ("GET", "/diff")):
        r = svc.client.request(
            method, f"/v1/documents/{path}{suffix}", headers=svc.as_role("editor")
        )
        assert r.status_code == 422, (method, path, r.text)
        assert r.json()["error"]["code"] == "invalid_request"
    assert (
        svc.client.get("/v1/documents/x.md/tree", headers=svc.as_role("reader")).status_code == 200
    )


def test_http_delete_by_unnormalized_id(svc: Service) -> None:
    svc.ingest("ok.md", DOC, doc_id="a/b.md")
    r = svc.client.delete("/v1/documents/a//b.md", headers=svc.as_role("editor"))
    assert r.status_code == 200, r.text
    assert r.json() == {"deleted": "a/b.md"}


def _cli(store: Path, *args: str, stdout_only: bool = False) -> tuple[int, str]:
    env = {"OVERSTORY_EMBEDDER": "hashing"}
    result = CliRunner().invoke(main, [*args, "--store", str(store)], env=env)
    # `output` interleaves stderr (progress lines, messages); --json's document is on stdout
    return result.exit_code, result.stdout if stdout_only else result.output


def test_cli_ingest_of_a_file_never_uses_the_host_path(tmp_path: Path) -> None:
    folder = tmp_path / "host" / "manuals"
    folder.mkdir(parents=True)
    (folder / "pump.md").write_bytes(DOC)
    store = tmp_path / "store"
    code, out = _cli(store, "ingest", str(folder / "pump.md"), "--json", stdout_only=True)
    assert code == 0, out
    report = json.loads(out)
    assert [d["doc_id"] for d in report["documents"]] == ["pump.md"]
    code, out = _cli(store, "docs", "--json")
    listed = json.loads(out)["documents"]
    assert [(d["doc_id"], d["source"]) for d in listed] == [("pump.md", "pump.md")]
    assert str(tmp_path) not in out
    code, out = _cli(store, "ingest", str(tmp_path / "host"), "--json", stdout_only=True)
    assert code == 0, out
    assert [d["doc_id"] for d in json.loads(out)["documents"]] == ["manuals/pump.md"]


@pytest.mark.parametrize(("raw", "words"), REFUSED)
def test_cli_rm_refuses_bad_doc_ids(tmp_path: Path, raw: str, words: str) -> None:
    code, out = _cli(tmp_path / "store", "rm", raw)
    assert code != 0
    assert words in out


def test_cli_rm_normalizes(tmp_path: Path) -> None:
    (tmp_path / "m" / "a").mkdir(parents=True)
    (tmp_path / "m" / "a" / "b.md").write_bytes(DOC)
    store = tmp_path / "store"
    assert _cli(store, "ingest", str(tmp_path / "m"))[0] == 0
    code, out = _cli(store, "rm", "./a//b.md", "--json")
    assert code == 0, out
    assert json.loads(out) == {"deleted": "a/b.md"}


def test_query_documents_are_normalized_too(svc: Service) -> None:
    body = {"query": "seal", "k": 3, "documents": ["./x.md", "x.md"]}
    r = svc.client.post("/v1/query", headers=svc.as_role("reader"), json=body)
    assert r.status_code == 200, r.text
    assert {x["doc_id"] for x in r.json()["results"]} <= {"x.md"}
    body["documents"] = ["../x.md"]  # no document can have that id
    r = svc.client.post("/v1/query", headers=svc.as_role("reader"), json=body)
    assert r.status_code == 404, r.text
