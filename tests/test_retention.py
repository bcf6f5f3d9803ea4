"""Retention: after 15 revisions only the last 10 remain (and a pinned one), the store shrinks,
kept revisions still diff and answer, a pruned one is 410 Gone, and doctor finds SQLite and
Chroma in agreement."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from api.cli import main
from indexer.diff import diff_revisions
from indexer.errors import GoneError
from indexer.index import Index
from indexer.retention import folder_bytes
from indexer.revisions import list_revisions
from indexer.settings import Settings
from indexer.store.reviews import NewReview
from retriever import Retriever
from tests.helpers import catalog_env
from tests.http_support import service
from tests.test_retriever import manual

DOC = "pump.md"


def revision(i: int) -> bytes:
    """The i-th revision: another torque each time, and a growing note (text to reclaim)."""
    note = " ".join(f"Revision {i} note {j}: check the seal cover nuts." for j in range(40))
    return manual(torque=f"{90 + i} N·m", extra=note)


def _correct_a_summary(index: Index, build_id: int) -> None:
    node = next(r for r in index.catalog.nodes_of_build(build_id) if r["title"] == "2.2 Impeller")
    index.catalog.reviews.add(
        NewReview(
            doc_id=DOC,
            node_hash=node["hash"],
            node_id=node["node_id"],
            heading_path=node["heading_path"],
            level=node["level"],
            summary_key=node["summary_key"],
            status="corrected",
            corrected_text="Tighten the impeller nut with thread locker.",
            note=None,
            reviewer="expert",
            flags=[],
        ),
        log_detail={},
    )


def test_fifteen_revisions_keep_ten_and_the_pinned_one(tmp_path: Path) -> None:
    settings = Settings(store=tmp_path / "store", embedder="hashing", keep_revisions=20)
    index = Index(settings)
    for i in range(15):
        index.ingest_bytes(revision(i), doc_id=DOC)
        if i == 1:
            _correct_a_summary(index, index.catalog.revisions(DOC)[-1].build_id)
    all_revs = [r.revision for r in list_revisions(index.catalog, DOC)]
    assert len(all_revs) == 15
    before = folder_bytes(settings.store)
    index.close()

    index = Index(settings.model_copy(update={"keep_revisions": 10}))
    dry = index.prune(dry_run=True)
    assert len(dry.dropped) == 4 and len(list_revisions(index.catalog, DOC)) == 15
    report = index.prune()
    assert [d.revision for d in report.dropped] == [all_revs[0], *all_revs[2:5]]
    assert [(k.revision, k.reason) for k in report.pinned] == [(all_revs[1], "correction")]
    assert report.nodes_deleted > 0 and report.vacuumed
    assert folder_bytes(settings.store) < before
    assert report.to_json()["bytes_reclaimed"] > 0

    kept = list_revisions(index.catalog, DOC)
    assert [r.revision for r in kept] == [all_revs[1], *all_revs[5:]]
    assert kept[0].pinned == "correction" and kept[-1].served
    diff = diff_revisions(index.catalog, DOC, from_revision=all_revs[5][:10])
    assert [c.heading_path[-1] for c in diff.changes] == ["2.2 Impeller"]
    with pytest.raises(GoneError, match="dropped by the retention rule"):
        diff_revisions(index.catalog, DOC, from_revision=all_revs[2][:10])
    health = index.check()
    assert health["consistent"], health
    assert health["n_missing"] == 0 and health["n_orphans"] == 0
    # A pruned revision still counts as one that completed (the load and crash checks ask).
    assert {r for d, r in index.catalog.completed_revisions() if d == DOC} == set(all_revs)

    out = Retriever(index).query(Retriever(index).request("impeller nut torque", k=3)).to_json()
    assert any("104 N·m" in r["text"] for r in out["results"] if r["kind"] == "passage")
    index.close()


@pytest.mark.backends
def test_every_ingest_prunes_and_a_pruned_revision_is_gone_over_http(
    tmp_path: Path, database_url: str
) -> None:
    settings = Settings(
        store=tmp_path / "store", embedder="hashing", keep_revisions=2, database_url=database_url
    )
    with service(settings) as svc:
        index = svc.app.state.index
        reports = [index.ingest_bytes(revision(i), doc_id=DOC) for i in range(4)]
        assert [len(r.pruned) for r in reports] == [0, 0, 1, 1]
        first = reports[0].documents[0].revision
        assert reports[2].to_json()["pruned"] == [{"doc_id": DOC, "revision": first}]
        reader = svc.as_role("reader")
        r = svc.client.get(f"/v1/documents/{DOC}/diff?from={first[:12]}", headers=reader)
        assert r.status_code == 410, r.text
        assert r.json()["error"]["code"] == "gone"
        assert "retention" in r.json()["error"]["message"]
        r = svc.client.post(
            "/v1/query",
            json={"query": f"What changed in the pump manual since revision {first[:12]}?"},
            headers=reader,
        )
        assert r.status_code == 410, r.text
        r = svc.client.get(f"/v1/documents/{DOC}/revisions", headers=reader)
        assert len(r.json()["revisions"]) == 2
        r = svc.client.get(f"/v1/documents/{DOC}/diff", headers=reader)
        assert r.status_code == 200 and r.json()["summary"]["changed"] == 1


@pytest.mark.backends
def test_prune_from_the_cli(tmp_path: Path, database_url: str) -> None:
    settings = Settings(
        store=tmp_path / "store", embedder="hashing", keep_revisions=5, database_url=database_url
    )
    index = Index(settings)
    for i in range(3):
        index.ingest_bytes(revision(i), doc_id=DOC)
    index.close()
    runner = CliRunner()
    env = {"OVERSTORY_EMBEDDER": "hashing", "OVERSTORY_KEEP_REVISIONS": "1"}
    env.update(catalog_env(settings))
    store = ["--store", str(settings.store)]
    dry = runner.invoke(main, ["prune", "--dry-run", *store], env=env)
    assert dry.exit_code == 0, dry.output
    assert "would drop 2 revisions (keeping 1 each)" in dry.output
    done = runner.invoke(main, ["prune", "--json", *store], env=env)
    assert done.exit_code == 0, done.output
    assert '"revisions_dropped": 2' in done.output
    listed = runner.invoke(main, ["revisions", DOC, *store], env=env)
    assert listed.exit_code == 0 and listed.output.count("sections,") == 1
    assert "1 changed (2.2 Impeller)" in listed.output
    doctor = runner.invoke(main, ["doctor", "--json", *store], env=env)
    assert doctor.exit_code == 0 and '"consistent": true' in doctor.output, doctor.output


@pytest.mark.backends
def test_an_open_review_pins_the_revision_it_was_made_on(tmp_path: Path, database_url: str) -> None:
    settings = Settings(
        store=tmp_path / "store", embedder="hashing", keep_revisions=2, database_url=database_url
    )
    index = Index(settings)
    index.ingest_bytes(revision(0), doc_id=DOC)
    first = index.catalog.revisions(DOC)[-1]
    node = next(
        r for r in index.catalog.nodes_of_build(first.build_id) if r["title"] == "2.2 Impeller"
    )
    index.catalog.reviews.add(
        NewReview(
            doc_id=DOC,
            node_hash=node["hash"],
            node_id=node["node_id"],
            heading_path=node["heading_path"],
            level=node["level"],
            summary_key=node["summary_key"],
            status="approved",
            corrected_text=None,
            note=None,
            reviewer="expert",
            flags=[],
        ),
        log_detail={},
    )
    for i in range(1, 4):  # every one changes 2.2 Impeller: the approval is stale, re-check open
        index.ingest_bytes(revision(i), doc_id=DOC)
    kept = list_revisions(index.catalog, DOC)
    assert [r.revision for r in kept][0] == first.revision
    assert kept[0].pinned == "open review" and len(kept) == 3
    assert index.check()["consistent"]


def test_the_store_is_measured_while_it_changes(tmp_path: Path, monkeypatch: Any) -> None:
    # A query publishing its BM25 index renames a temporary folder while an ingest measures the
    # store after pruning; a file or folder gone between listing and stat once failed the ingest.
    from indexer import retention

    (tmp_path / "lexical" / ".tmp-x").mkdir(parents=True)
    (tmp_path / "kept.bin").write_bytes(b"abc")
    (tmp_path / "lexical" / ".tmp-x" / "gone.bin").write_bytes(b"12345")
    assert retention.folder_bytes(tmp_path) == 8
    real_stat = os.stat

    def vanishing(path: Any, **kw: Any) -> os.stat_result:
        if str(path).endswith("gone.bin"):
            raise FileNotFoundError(path)
        return real_stat(path, **kw)

    monkeypatch.setattr(retention.os, "stat", vanishing)
    assert retention.folder_bytes(tmp_path) == 3
