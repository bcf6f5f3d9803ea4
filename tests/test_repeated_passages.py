"""Manuals repeat text word for word (warnings, notes, shared procedures): a document with 50
identical passages ingests, and every query over it answers (identical texts share one vector,
and no call to the vector store names an id twice)."""

from __future__ import annotations

from pathlib import Path

from indexer.settings import Settings
from tests.http_support import served

WARNING = (
    "WARNING: Disconnect the mains supply and wait five minutes for the capacitors to discharge "
    "before you open the cover. Wear insulated gloves."
)


def _manual() -> bytes:
    parts = ["# Repeating Manual\n"]
    for i in range(1, 51):
        parts.append(f"\n## {i} Procedure {i}\n\n### {i}.1 Safety\n\n{WARNING}\n")
        parts.append(f"\n### {i}.2 Steps\n\nLoosen the {i} screws of panel P-{i:03d}.\n")
    return "".join(parts).encode()


def test_fifty_identical_passages_ingest_and_answer(tmp_path: Path) -> None:
    settings = Settings(store=tmp_path / "store", embedder="hashing")
    with served(settings) as (svc, _):
        job = svc.ingest("repeating.md", _manual())
        (doc,) = job["report"]["documents"]
        assert doc["passages"] >= 100
        index = svc.app.state.index
        rows = index.catalog.nodes_of_build(index.catalog.current_build("repeating.md"))
        repeated = [r for r in rows if r["level"] == "passage" and r["text"] == WARNING]
        assert len(repeated) == 50 and len({r["vector_id"] for r in repeated}) == 1
        headers = svc.as_role("reader")
        for query in ("disconnect the mains supply", WARNING, "panel P-017 screws", "capacitors"):
            for body in (
                {"query": query, "k": 20},
                {"query": query, "k": 50, "kinds": ["passage"], "expand": True},
                {"query": query, "k": 10, "documents": ["repeating.md"]},
            ):
                r = svc.client.post("/v1/query", headers=headers, json=body)
                assert r.status_code == 200, (body, r.text)
                assert r.json()["results"], body
        r = svc.client.post("/v1/select", headers=headers, json={"k": 8})
        assert r.status_code == 200, r.text
        assert index.check()["consistent"]
