"""Questions about change, answered over HTTP from the diff of two revisions of the pump manual.

The second revision carries six known edits (``tests.revision_fixtures``): each question about
them must return exactly the changes it asks about, scoped to the chapter it names.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from indexer.index import Index
from indexer.settings import Settings
from retriever import Retriever
from tests.http_support import Service, service
from tests.pdfgen import build_pdf
from tests.revision_fixtures import EXPECTED, TITLE, V1, second_revision

DOC = "pump-x200.md"
MAINTENANCE = {c for c in EXPECTED if c[1][0] == "5 Maintenance"}


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    settings = Settings(store=tmp_path_factory.mktemp("cmp") / "store", embedder="hashing")
    with service(settings) as s:
        s.app.state.index.ingest_bytes(V1.encode(), doc_id=DOC)
        s.app.state.index.ingest_bytes(second_revision().encode(), doc_id=DOC)
        yield s


def ask(svc: Service, query: str, **body: Any) -> dict[str, Any]:
    r = svc.client.post("/v1/query", json={"query": query, **body}, headers=svc.as_role("reader"))
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def found(comparison: dict[str, Any]) -> set[tuple[str, tuple[str, ...]]]:
    return {(c["change"], tuple(c["heading_path"][1:])) for c in comparison["changes"]}


def test_the_diff_holds_exactly_the_six_edits(svc: Service) -> None:
    r = svc.client.get(f"/v1/documents/{DOC}/diff", headers=svc.as_role("reader"))
    assert r.status_code == 200, r.text
    assert found(r.json()) == EXPECTED
    moved = next(c for c in r.json()["changes"] if c["change"] == "moved")
    assert moved["old_heading_path"] == [TITLE, "6 Troubleshooting", "6.4 Vibration analysis"]
    renamed = next(c for c in r.json()["changes"] if c["change"] == "renamed")
    assert renamed["old_heading_path"][-1] == "5.2 Bearing lubrication"


@pytest.mark.parametrize(
    ("question", "expected", "scope"),
    [
        ("What changed in the pump manual?", EXPECTED, [TITLE]),
        ("What is new in the maintenance chapter since March?", MAINTENANCE, "5 Maintenance"),
        (
            "Is the impeller torque different in the new revision?",
            {("changed", ("5 Maintenance", "5.6 Reassembly and tightening torques"))},
            [TITLE],
        ),
        (
            "Was the long-term shutdown section removed?",
            {c for c in EXPECTED if c[0] == "removed"},
            "4.5.1 Long-term shutdown",
        ),
        (
            "Which steps were reordered in the start-up procedure?",
            {("changed", ("4 Commissioning and operation", "4.3 Start-up procedure"))},
            "4.3 Start-up procedure",
        ),
        (
            "Which headings were renamed in the latest revision?",
            {c for c in EXPECTED if c[0] == "renamed"},
            [TITLE],
        ),
        (
            "Has the vibration analysis section been moved to another chapter?",
            {c for c in EXPECTED if c[0] == "moved"},
            "6.4 Vibration analysis",
        ),
        (
            "What was added to the maintenance chapter?",
            {c for c in EXPECTED if c[0] == "added"},
            "5 Maintenance",
        ),
        (
            "What was removed from the commissioning chapter?",
            {c for c in EXPECTED if c[0] == "removed"},
            "4 Commissioning and operation",
        ),
        ("What changed in section 5.6?", {c for c in EXPECTED if "5.6" in c[1][-1]}, "5.6"),
    ],
)
def test_each_change_question_returns_exactly_its_changes(
    svc: Service, question: str, expected: set[Any], scope: Any
) -> None:
    out = ask(svc, question, change_summary=False)
    assert out["kind"] == "comparison" and out["results"] == []
    assert out["route"]["route"] == "comparison" and out["route"]["rules"]
    [comparison] = out["comparisons"]
    assert found(comparison) == expected
    if isinstance(scope, list):
        assert comparison["scope"] == {"level": "document", "heading_path": scope, "named": None}
    else:
        assert comparison["scope"]["heading_path"][-1].startswith(scope)


def test_a_comparison_names_revisions_quotes_both_sides_and_both_summaries(
    svc: Service,
) -> None:
    out = ask(svc, "Is the impeller torque different in the new revision?")
    [comparison] = out["comparisons"]
    revisions = svc.client.get(
        f"/v1/documents/{DOC}/revisions", headers=svc.as_role("reader")
    ).json()["revisions"]
    assert comparison["from"]["revision"] == revisions[0]["revision"]
    assert comparison["to"]["revision"] == revisions[1]["revision"]
    assert comparison["to"]["ingested_at"] == revisions[1]["ingested_at"]
    assert comparison["value"]["changed"] is True
    [change] = comparison["changes"]
    [before], [after] = change["before"], change["after"]
    assert before["label"] == after["label"] == "quote"
    assert "95 N·m" in before["text"] and before["revision"] == revisions[0]["revision"]
    assert "110 N·m" in after["text"] and after["revision"] == revisions[1]["revision"]
    sides = [s["revision"] for s in change["summaries"]]
    assert sides == [revisions[0]["revision"], revisions[1]["revision"]]
    assert all(s["label"].startswith("summary of 5.6") and s["text"] for s in change["summaries"])
    summary = comparison["change_summary"]
    assert summary["label"].startswith("change summary") and summary["text"]
    assert summary["summarizer"].startswith("extractive/")
    again = ask(svc, "What changed in the PX-200 manual?")["comparisons"][0]["change_summary"]
    assert again["cached"] is True and again["text"] == summary["text"]


def test_an_unchanged_value_is_said_plainly_with_its_passages(svc: Service) -> None:
    out = ask(svc, "Is the casing nut torque still 180 N·m or did it change?")
    [comparison] = out["comparisons"]
    assert comparison["changes"] == []
    value = comparison["value"]
    assert value["changed"] is False
    assert value["unchanged"] and "| Casing nuts | M16 | 180 N·m |" in value["unchanged"][0]["text"]
    assert value["unchanged"][0]["label"] == "quote"


def test_the_route_is_explained_and_can_be_forced(svc: Service) -> None:
    plain = ask(svc, "What torque does the impeller nut need?")
    assert plain["kind"] == "retrieval" and plain["results"]
    assert plain["route"] == {
        "route": "retrieval",
        "score": 0.0,
        "threshold": 1.0,
        "rules": [],
        "source": "rule",
    }
    forced = ask(svc, "What torque does the impeller nut need?", route="comparison")
    assert forced["kind"] == "comparison" and forced["route"]["source"] == "request"
    back = ask(svc, "What changed in the pump manual?", route="retrieval")
    assert back["kind"] == "retrieval" and back["results"]
    assert back["route"]["source"] == "request" and back["route"]["rules"] == ["what_changed"]
    r = svc.client.post(
        "/v1/query", json={"query": "x", "route": "sideways"}, headers=svc.as_role("reader")
    )
    assert r.status_code == 422


def test_revisions_and_changes_since_a_date(svc: Service) -> None:
    r = svc.client.get(f"/v1/documents/{DOC}/revisions", headers=svc.as_role("reader"))
    assert r.status_code == 200, r.text
    first, second = r.json()["revisions"]
    assert (first["served"], second["served"]) == (False, True)
    assert first["changes"] == "first revision"
    assert second["previous"] == first["revision"]
    assert "1 added (5.7 Coupling inspection)" in second["changes"]
    assert second["sections"] > 40 and second["passages"] > 50 and second["summaries"] > 40
    r = svc.client.get("/v1/changes?since=2000-01-01", headers=svc.as_role("reader"))
    assert r.status_code == 200, r.text
    [doc] = r.json()["documents"]
    assert doc["doc_id"] == DOC and [x["revision"] for x in doc["revisions"]] == [
        first["revision"],
        second["revision"],
    ]
    r = svc.client.get("/v1/changes?since=2999-01-01", headers=svc.as_role("reader"))
    assert r.json()["documents"] == []
    r = svc.client.get("/v1/changes?since=March", headers=svc.as_role("reader"))
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"
    r = svc.client.get("/v1/documents/nope.md/revisions", headers=svc.as_role("reader"))
    assert r.status_code == 404


def test_a_change_question_about_a_date_after_the_last_revision(svc: Service) -> None:
    out = ask(svc, "What changed in the pump manual since 2999-01-01?", change_summary=False)
    [comparison] = out["comparisons"]
    assert comparison["changes"] == [] and comparison["note"] == "no new revision since then"
    assert comparison["from"] == comparison["to"]


def test_quotes_of_a_pdf_carry_their_pages_in_both_revisions(tmp_path: Path) -> None:
    settings = Settings(store=tmp_path / "store", embedder="hashing")
    index = Index(settings)
    for n, text in enumerate((V1, second_revision())):
        build_pdf(text, tmp_path / f"{n}.pdf")
        data = (tmp_path / f"{n}.pdf").read_bytes()
        index.ingest_bytes(data, doc_id="pump.pdf", filename="pump.pdf")
    retriever = Retriever(index)
    out = retriever.query(
        retriever.request("Is the impeller torque different in the new revision?")
    ).to_json()
    [change] = out["comparisons"][0]["changes"]
    assert change["heading_path"][-1] == "5.6 Reassembly and tightening torques"
    assert change["pages"] and change["old_pages"]
    assert all(q["pages"] for q in change["before"] + change["after"])
    assert any("95 N·m" in q["text"] for q in change["before"])
    assert any("110 N·m" in q["text"] for q in change["after"])
    index.close()


def test_a_change_summary_is_written_for_a_caller_inside_an_event_loop(svc: Service) -> None:
    retriever = svc.app.state.retriever

    async def ask_inside_a_loop() -> dict[str, Any]:
        out: dict[str, Any] = retriever.query(
            retriever.request("What changed in section 4.3?")
        ).to_json()
        return out

    summary = asyncio.run(ask_inside_a_loop())["comparisons"][0]["change_summary"]
    assert summary["cached"] is False and "4.3 Start-up procedure" in summary["text"]
