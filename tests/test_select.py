"""Query-free selection: coverage of a labelled corpus, provenance, K rules, scope, CLI and HTTP.

The coverage test ingests ``tests/data/topics8.jsonl`` (8 topics, one of 42 %, two of 2.5 %)
with the real embedding model and compares every method with a TextRank baseline in one run;
the table is printed and written to the file named in ``BENCH_SELECT_COVERAGE_FILE`` (set by
``benchmarks/bench_select_coverage.py``, so ``make bench`` produces
``benchmarks/results/select_coverage.json``), else to the test's temporary folder: a test run
leaves the repository as it found it.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient

from api.routes.select import SelectResponse
from api.routes.select import router as select_router
from indexer.embedding import Embedder
from indexer.errors import (
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    OverstoryError,
    error_body,
)
from indexer.index import Index
from indexer.settings import Settings
from indexer.validation import validated
from retriever.selection import SelectionRequest, select
from retriever.selection.balanced import merge_by_similarity
from retriever.selection.k_choice import elbow_k
from retriever.selection.kmeans import kmeans
from retriever.selection.mmr import mmr
from retriever.selection.rank import textrank_top_k
from retriever.selection.vectors import CACHE_DIR, load_passages, passage_details

ROOT = Path(__file__).resolve().parent.parent
TOPICS = ROOT / "tests" / "data" / "topics8.jsonl"
# Not OVERSTORY_*: that prefix names settings, and conftest clears it.
COVERAGE_ENV = "BENCH_SELECT_COVERAGE_FILE"
METHODS = ("centroid", "rank", "balanced")
SEEDS = range(10)


def _norm(text: str) -> str:
    return " ".join(text.split())


def topic_rows() -> list[dict[str, str]]:
    return [json.loads(line) for line in TOPICS.read_text().splitlines() if line.strip()]


def write_notes(folder: Path) -> None:
    """The labelled passages as two Markdown documents, shuffled, one neutral heading each.

    Headings say nothing about the topic and the order is shuffled, so no method can use the
    document structure: coverage comes from the embeddings alone.
    """
    rows = topic_rows()
    order = list(range(len(rows)))
    random.Random(7).shuffle(order)
    folder.mkdir(parents=True, exist_ok=True)
    half = len(order) // 2
    for part, chunk in enumerate((order[:half], order[half:]), start=1):
        lines = [f"# Course notes, part {part}", ""]
        for pos, i in enumerate(chunk, start=1):
            lines += [f"## Note {part}.{pos}", "", rows[i]["text"], ""]
        (folder / f"notes-{part}.md").write_text("\n".join(lines))


def write_manual(folder: Path) -> None:
    """A structured manual: one chapter per topic, sections of three passages each."""
    by_topic: dict[str, list[str]] = {}
    for row in topic_rows():
        by_topic.setdefault(row["topic"], []).append(row["text"])
    lines = ["# Field manual", ""]
    for c, (topic, texts) in enumerate(by_topic.items(), start=1):
        lines += [f"## {c} {topic.title()}", ""]
        for s in range(0, len(texts), 3):
            lines += [f"### {c}.{s // 3 + 1} Part {s // 3 + 1}", ""]
            for text in texts[s : s + 3]:
                lines += [text, ""]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manual.md").write_text("\n".join(lines))


def topic_of(text: str, rows: list[dict[str, str]]) -> str:
    """The topic of a passage (a passage holds one labelled text, or lies inside one)."""
    wanted = _norm(text)
    for row in rows:
        if wanted == _norm(row["text"]) or wanted in _norm(row["text"]):
            return row["topic"]
    raise AssertionError(f"passage not in the labelled corpus: {text[:60]!r}")


def redundancy(vectors: np.ndarray) -> float:
    """Mean pairwise cosine similarity of unit vectors."""
    pairs = [float(vectors[a] @ vectors[b]) for a, b in combinations(range(len(vectors)), 2)]
    return float(np.mean(pairs)) if pairs else 0.0


def save_report(path: Path, key: str, report: dict[str, Any]) -> None:
    """Merge one table into the coverage results file ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    current = json.loads(path.read_text()) if path.exists() else {}
    current[key] = report
    path.write_text(json.dumps(current, indent=2) + "\n")


# fixtures ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def coverage_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the coverage tables go: ``$BENCH_SELECT_COVERAGE_FILE``, else a temporary folder."""
    wanted = os.environ.get(COVERAGE_ENV)
    if wanted:
        return Path(wanted)
    return tmp_path_factory.mktemp("results") / "select_coverage.json"


@pytest.fixture(scope="module")
def topics_index(tmp_path_factory: pytest.TempPathFactory, minilm: Embedder) -> Index:
    """The labelled notes ingested with the real embedding model (stored vectors are MiniLM's)."""
    base = tmp_path_factory.mktemp("topics8")
    write_notes(base / "docs")
    index = Index(Settings(store=base / "store"), embedder=minilm)
    report = index.ingest_paths([base / "docs"])
    assert report.ok, report.errors
    return index


@pytest.fixture(scope="module")
def hashed(tmp_path_factory: pytest.TempPathFactory) -> Index:
    """Notes and a structured manual ingested with the fast hashing embedder (read-only)."""
    base = tmp_path_factory.mktemp("select-fast")
    write_notes(base / "docs")
    write_manual(base / "docs")
    index = Index(Settings(store=base / "store", embedder="hashing"))
    report = index.ingest_paths([base / "docs"])
    assert report.ok, report.errors
    return index


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[tuple[Index, Path]]:
    """A private hashing store with the notes, for tests that change it."""
    write_notes(tmp_path / "docs")
    index = Index(Settings(store=tmp_path / "store", embedder="hashing"))
    assert index.ingest_paths([tmp_path / "docs"]).ok
    yield index, tmp_path / "docs"
    index.close()


def representatives(result: Any) -> list[Any]:
    return [r for c in result.clusters for r in c.representatives]


# 1. coverage and 2. redundancy with the real model ------------------------------------------------
def test_coverage_and_redundancy_per_method_against_textrank(
    topics_index: Index, coverage_file: Path
) -> None:
    rows = topic_rows()
    topics = sorted({r["topic"] for r in rows})
    counts = {t: sum(r["topic"] == t for r in rows) for t in topics}
    n = len(rows)
    assert len(topics) >= 8 and n >= 70
    assert max(counts.values()) / n >= 0.40
    assert sum(c / n <= 0.03 for c in counts.values()) >= 2
    assert all(40 <= len(r["text"].split()) <= 90 for r in rows)

    k = len(topics)
    passages = load_passages(topics_index)
    assert len(passages) == n
    position = {nid: i for i, nid in enumerate(passages.node_ids)}
    report: dict[str, Any] = {
        "corpus": {"passages": n, "topics": counts, "k": k, "model": "all-MiniLM-L6-v2"},
        "methods": {},
    }

    def score(node_ids: list[str], texts: list[str]) -> dict[str, Any]:
        found = {topic_of(t, rows) for t in texts}
        vecs = passages.vectors[[position[i] for i in node_ids]]
        return {
            "coverage": round(len(found) / len(topics), 4),
            "missed": sorted(set(topics) - found),
            "redundancy": round(redundancy(vecs), 4),
        }

    for method in METHODS:
        result = select(topics_index, SelectionRequest(k=k, method=method))
        reps = representatives(result)
        assert result.k == k and len(reps) == k and result.k_rule == "request"
        entry = score([r.node_id for r in reps], [r.text for r in reps])
        per_seed = []
        for seed in SEEDS:
            other = representatives(
                select(topics_index, SelectionRequest(k=k, method=method), seed=seed)
            )
            per_seed.append(score([r.node_id for r in other], [r.text for r in other])["coverage"])
        entry["coverage_over_seeds"] = {
            "seeds": len(per_seed),
            "mean": round(float(np.mean(per_seed)), 4),
            "min": min(per_seed),
        }
        report["methods"][method] = entry

    top = textrank_top_k(passages.vectors, k)
    ids = [passages.node_ids[i] for i in top]
    details = passage_details(topics_index, ids)
    report["methods"]["textrank_top_k"] = score(ids, [details[i]["text"] for i in ids])

    save_report(coverage_file, "topics8", report)
    print("\nmethod           coverage  (mean/min over 10 seeds)  redundancy  missed")
    for name, e in report["methods"].items():
        seeds = e.get("coverage_over_seeds")
        spread = f"{seeds['mean']:.3f}/{seeds['min']:.3f}" if seeds else "  (no seed)"
        print(
            f"{name:16} {e['coverage']:8.3f}  {spread:>26}  {e['redundancy']:10.3f}  {e['missed']}"
        )

    methods = report["methods"]
    assert methods["balanced"]["coverage"] == 1.0
    assert methods["balanced"]["coverage_over_seeds"]["min"] == 1.0
    # The baseline repeats the dominant topic: that is the failure selection exists to fix.
    assert methods["textrank_top_k"]["coverage"] < methods["balanced"]["coverage"]
    assert methods["balanced"]["redundancy"] < methods["textrank_top_k"]["redundancy"]


def test_document_coverage_on_the_fixture_manuals(
    fixtures_index: Index, coverage_file: Path
) -> None:
    """Real manuals, where each document is a topic: which documents get a representative.

    Reported, not asserted beyond provenance: there is no topic label inside a manual, and a
    cluster may mix documents (a service call about pump seals sits with the pump manual).
    """
    passages = load_passages(fixtures_index)
    documents = sorted(set(passages.doc_ids))
    position = {nid: i for i, nid in enumerate(passages.node_ids)}
    report: dict[str, Any] = {"passages": len(passages), "documents": len(documents), "k": {}}
    print(f"\nfixture manuals: {len(passages)} passages, {len(documents)} documents")
    for k in (len(documents), 10):
        row: dict[str, Any] = {}
        for method in METHODS:
            request = SelectionRequest(k=k, method=method)
            result = select(fixtures_index, request)
            reps = representatives(result)
            for rep in reps:
                node = fixtures_index.catalog.node(rep.node_id)
                assert node is not None
                text = fixtures_index.catalog.build_text(node["build_id"])
                assert text[rep.char_start : rep.char_end] == rep.text
            vecs = passages.vectors[[position[r.node_id] for r in reps]]
            seeds = [
                len({r.doc_id for r in representatives(select(fixtures_index, request, seed=s))})
                / len(documents)
                for s in SEEDS
            ]
            row[method] = {
                "document_coverage": round(len({r.doc_id for r in reps}) / len(documents), 4),
                "document_coverage_over_seeds": {
                    "seeds": len(seeds),
                    "mean": round(float(np.mean(seeds)), 4),
                    "min": min(seeds),
                },
                "largest_share": max(c.share for c in result.clusters),
                "redundancy": round(redundancy(vecs), 4),
            }
        top = textrank_top_k(passages.vectors, k)
        row["textrank_top_k"] = {
            "document_coverage": round(len({passages.doc_ids[i] for i in top}) / len(documents), 4),
            "largest_share": None,
            "redundancy": round(redundancy(passages.vectors[top]), 4),
        }
        report["k"][str(k)] = row
        for name, e in row.items():
            seeds_text = ""
            if "document_coverage_over_seeds" in e:
                over = e["document_coverage_over_seeds"]
                seeds_text = f" (seeds mean {over['mean']:.2f} min {over['min']:.2f})"
            print(
                f"K={k:<3} {name:16} documents {e['document_coverage']:.2f}{seeds_text}  "
                f"largest share {e['largest_share']}  redundancy {e['redundancy']:.3f}"
            )
    save_report(coverage_file, "fixture_manuals", report)


def test_balanced_small_topics_keep_their_own_cluster(topics_index: Index) -> None:
    rows = topic_rows()
    result = select(topics_index, SelectionRequest(k=8, method="balanced", per_cluster=2))
    smallest = result.clusters[-2:]
    for cluster in smallest:
        assert cluster.size == 2
        assert len({topic_of(r.text, rows) for r in cluster.representatives}) == 1
    assert result.clusters[0].size >= 30
    assert result.clusters[0].share == pytest.approx(result.clusters[0].size / 80, abs=1e-4)


# 3. provenance ----------------------------------------------------------------------------------
@pytest.mark.parametrize("method", METHODS)
def test_every_representative_resolves_to_its_document_text(hashed: Index, method: str) -> None:
    result = select(hashed, SelectionRequest(k=6, method=method, per_cluster=3))
    served = hashed.catalog.current_builds()
    for rep in representatives(result):
        node = hashed.catalog.node(rep.node_id)
        assert node is not None and node["level"] == "passage"
        assert node["build_id"] == served[rep.doc_id]
        text = hashed.catalog.build_text(node["build_id"])
        assert text[rep.char_start : rep.char_end] == rep.text
        doc = hashed.catalog.require_document(rep.doc_id)
        assert rep.revision == doc["revision"] and rep.source == doc["source"]
        assert rep.heading_path == json.loads(node["heading_path"])
        assert rep.pages is None  # Markdown has no pages
        assert (rep.kind, rep.level, rep.label, rep.covers) == ("passage", "passage", "quote", None)
        assert rep.distance_to_centroid >= 0


def test_pdf_representatives_carry_their_pages(tmp_path: Path) -> None:
    pypdf = pytest.importorskip("pypdf")
    from tests.pdfgen import build_pdf

    manual = tmp_path / "src"
    write_manual(manual)
    build_pdf((manual / "manual.md").read_text(), tmp_path / "manual.pdf")
    index = Index(Settings(store=tmp_path / "store", embedder="hashing"))
    assert index.ingest_paths([tmp_path / "manual.pdf"]).ok
    result = select(index, SelectionRequest(k=5, per_cluster=2))
    reader = pypdf.PdfReader(str(tmp_path / "manual.pdf"))
    for rep in representatives(result):
        node = index.catalog.node(rep.node_id)
        assert node is not None and rep.pages is not None
        assert rep.pages == [node["page_start"], node["page_end"]]
        first, last = rep.pages
        assert 1 <= first <= last <= len(reader.pages)
        text = index.catalog.build_text(node["build_id"])
        assert text[rep.char_start : rep.char_end] == rep.text
        opening = " ".join(rep.text.split()[:4])
        assert opening in " ".join((reader.pages[first - 1].extract_text() or "").split())


# determinism, K rules -----------------------------------------------------------------------------
@pytest.mark.parametrize("method", METHODS)
def test_two_runs_are_identical(hashed: Index, method: str) -> None:
    request = SelectionRequest(k=7, method=method, per_cluster=2)
    first = select(hashed, request).to_dict()
    again = select(Index(hashed.settings), request).to_dict()
    assert first == again
    other_seed = select(hashed, SelectionRequest(k=7, method=method, per_cluster=2), seed=1)
    assert other_seed.seed == 1


def test_k_from_request_budget_and_elbow(hashed: Index) -> None:
    from indexer.tokens import count_tokens

    docs = ("notes-1.md",)
    asked = select(hashed, SelectionRequest(k=4, documents=docs))
    assert (asked.k, asked.k_rule, len(asked.clusters)) == (4, "request", 4)

    texts = [
        r["text"]
        for r in passage_details(
            hashed, load_passages(hashed, documents=list(docs)).node_ids
        ).values()
    ]
    mean = float(np.mean([count_tokens(t) for t in texts]))
    budget = select(hashed, SelectionRequest(budget_tokens=1000, documents=docs, per_cluster=2))
    assert budget.k_rule == "budget"
    assert budget.k == int(1000 // (mean * 2))
    assert budget.k_detail.mean_passage_tokens == pytest.approx(mean, abs=0.05)
    assert len(budget.clusters) == budget.k

    tiny = select(hashed, SelectionRequest(budget_tokens=5, documents=docs))
    assert (tiny.k, tiny.k_rule, tiny.k_detail.clamped) == (1, "budget", True)

    both = select(hashed, SelectionRequest(k=3, budget_tokens=1000, documents=docs))
    assert (both.k, both.k_rule) == (3, "request")

    elbow = select(hashed, SelectionRequest(documents=docs))
    assert elbow.k_rule == "elbow"
    curve = elbow.k_detail.inertia_curve
    assert curve is not None
    grid = [int(k) for k, _ in curve]
    assert grid[0] == 1 and grid[-1] == 40 // 2
    assert elbow.k in grid and len(elbow.clusters) == elbow.k


def test_elbow_finds_the_number_of_separated_groups() -> None:
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(6, 32))
    points = np.repeat(centers, 40, axis=0) + 0.05 * rng.normal(size=(240, 32))
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    k, _ = elbow_k(points.astype(np.float32), seed=0)
    assert k == 6


# scope ------------------------------------------------------------------------------------------
def test_scope_by_documents(hashed: Index) -> None:
    n_doc = len(load_passages(hashed, documents=["manual.md"]))
    result = select(hashed, SelectionRequest(k=4, documents=("manual.md",), per_cluster=3))
    assert result.n_passages == n_doc
    assert result.scope.documents == ["manual.md"]
    assert {r.doc_id for r in representatives(result)} == {"manual.md"}
    both = select(hashed, SelectionRequest(k=4, documents=("notes-2.md", "notes-1.md")))
    assert both.n_passages == 80
    assert both.scope.documents == ["notes-1.md", "notes-2.md"]


def test_scope_under_a_chapter(hashed: Index) -> None:
    tree = hashed.tree("manual.md")
    chapter = next(c for c in tree["children"] if c["title"].endswith("Pump Maintenance"))

    def passages_below(node: dict[str, Any]) -> set[str]:
        if node["level"] == "passage":
            return {node["node_id"]}
        return set().union(*(passages_below(c) for c in node["children"]))

    below = passages_below(chapter)
    result = select(hashed, SelectionRequest(k=3, under=chapter["node_id"], per_cluster=4))
    assert result.n_passages == len(below)
    assert result.scope.under == chapter["node_id"]
    for rep in representatives(result):
        assert rep.node_id in below
        assert rep.heading_path[:2] == chapter["heading_path"]


def test_invalid_requests(hashed: Index, fresh: tuple[Index, Path]) -> None:
    # What the request model refuses (the CLI and HTTP validate through it).
    limited = SelectionRequest.with_limits(max_k=hashed.settings.max_k)
    for bad in (
        {"k": 0},
        {"k": hashed.settings.max_k + 1},
        {"k": 3, "per_cluster": 0},
        {"k": 3, "per_cluster": 51},
        {"budget_tokens": 0},
        {"k": 3, "method": "kmedoids"},
        {"k": 3, "documents": []},
        {"k": 3, "seed": 1},
    ):
        with pytest.raises(InvalidRequestError):
            validated(limited, bad)
    with pytest.raises(InvalidRequestError):
        select(hashed, SelectionRequest(k=41, documents=("notes-1.md",)))
    with pytest.raises(NotFoundError):
        select(hashed, SelectionRequest(k=3, documents=("missing.md",)))
    with pytest.raises(NotFoundError):
        select(hashed, SelectionRequest(k=3, under="no-such-node"))
    chapter = hashed.tree("manual.md")["children"][0]["node_id"]
    with pytest.raises(InvalidRequestError):
        select(hashed, SelectionRequest(k=2, under=chapter, documents=("notes-1.md",)))

    index, docs = fresh
    old_node = index.tree("notes-1.md")["children"][0]["node_id"]
    path = docs / "notes-1.md"
    path.write_text(path.read_text() + "\n## Added\n\nA new closing paragraph about nothing.\n")
    assert index.ingest_paths([docs]).ok
    with pytest.raises(NotFoundError):  # a node of a superseded revision is not served
        select(index, SelectionRequest(k=2, under=old_node))


def test_documents_embedded_by_different_models_are_not_mixed(fresh: tuple[Index, Path]) -> None:
    index, _ = fresh
    with index.catalog.write() as db:
        db.execute("UPDATE builds SET embedder = 'other-model' WHERE doc_id = 'notes-2.md'")
    with pytest.raises(ConflictError):
        select(index, SelectionRequest(k=3))
    assert select(index, SelectionRequest(k=3, documents=("notes-2.md",))).k == 3


# representatives: MMR ---------------------------------------------------------------------------
def test_per_cluster_representatives_are_diverse(hashed: Index) -> None:
    one = select(hashed, SelectionRequest(k=5, method="centroid"))
    three = select(hashed, SelectionRequest(k=5, method="centroid", per_cluster=3))
    for a, b in zip(one.clusters, three.clusters, strict=True):
        assert b.representatives[0].node_id == a.representatives[0].node_id
        ids = [r.node_id for r in b.representatives]
        assert len(ids) == min(3, b.size) == len(set(ids))
        assert [r.rank for r in b.representatives] == list(range(1, len(ids) + 1))


def test_mmr_skips_a_near_duplicate_of_the_first_pick() -> None:
    base = np.eye(4, dtype=np.float32)
    dup = base[0] + 0.01 * base[1]
    vectors = np.stack([base[0], dup / np.linalg.norm(dup), base[2], base[3]])
    relevance = np.array([1.0, 0.99, 0.6, 0.5])
    assert mmr(vectors, relevance, 2, lam=1.0) == [0, 1]
    assert mmr(vectors, relevance, 2, lam=0.7) == [0, 2]


# the clustering pieces ---------------------------------------------------------------------------
def test_kmeans_returns_exactly_k_non_empty_clusters_even_with_duplicates() -> None:
    rng = np.random.default_rng(1)
    distinct = rng.normal(size=(5, 16)).astype(np.float32)
    points = np.concatenate([distinct, distinct])  # 10 points, 5 distinct
    fit = kmeans(points, 8, seed=3)
    assert sorted(set(fit.labels.tolist())) == list(range(8))
    again = kmeans(points, 8, seed=3)
    assert np.array_equal(fit.labels, again.labels)


def test_merge_keeps_a_small_distant_group_and_joins_pieces_of_a_large_one() -> None:
    rng = np.random.default_rng(2)
    big, small = rng.normal(size=32), rng.normal(size=32)
    other = rng.normal(size=32)
    points = np.concatenate(
        [
            big + 0.3 * rng.normal(size=(60, 32)),
            other + 0.3 * rng.normal(size=(20, 32)),
            small + 0.3 * rng.normal(size=(2, 32)),
        ]
    ).astype(np.float32)
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    fine = np.concatenate([np.arange(60) % 4, 4 + np.arange(20) % 2, [6, 6]])
    groups, info = merge_by_similarity(points, fine, 7, 3)
    final = groups[fine]
    assert info.documents_kept_apart == 0
    assert len(set(final[:60].tolist())) == 1
    assert len(set(final[60:80].tolist())) == 1
    assert len({final[0], final[60], final[80]}) == 3


def test_merge_keeps_separable_documents_apart_when_k_allows() -> None:
    rng = np.random.default_rng(3)
    shared = rng.normal(size=32)
    near = shared + 0.25 * rng.normal(size=32)  # document 1 reads much like document 0
    far_a, far_b = rng.normal(size=32), rng.normal(size=32)  # document 2: two unlike halves

    def blob(center: np.ndarray, n: int) -> np.ndarray:
        return center + 0.2 * rng.normal(size=(n, 32))

    points = np.concatenate(
        [blob(shared, 20), blob(near, 20), blob(far_a, 10), blob(far_b, 10)]
    ).astype(np.float32)
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    fine = np.concatenate([np.arange(20) % 2, 2 + np.arange(20) % 2, [4] * 10, [5] * 10])
    docs = np.concatenate([[0] * 20, [1] * 20, [2] * 20])

    plain, _ = merge_by_similarity(points, fine, 6, 3)
    assert plain[0] == plain[2]  # without the rule the two alike documents share a cluster
    stratified, info = merge_by_similarity(points, fine, 6, 3, strata=docs)
    assert info.documents_kept_apart == 3
    assert info.document_separation is not None and info.document_separation > 0.75
    final = stratified[fine]
    homes = {int(np.bincount(final[docs == d]).argmax()) for d in range(3)}
    assert len(homes) == 3

    off, info_off = merge_by_similarity(points, fine, 6, 2, strata=docs)  # 3 documents > K
    assert info_off.documents_kept_apart == 0
    assert np.array_equal(off, merge_by_similarity(points, fine, 6, 2)[0])

    mixed = np.arange(60) % 3  # documents that are mixtures of the same groups
    _, info_mixed = merge_by_similarity(points, fine, 6, 3, strata=mixed)
    assert info_mixed.documents_kept_apart == 0
    assert info_mixed.document_separation is not None and info_mixed.document_separation < 0.75


# the vector matrix cache -------------------------------------------------------------------------
def test_vector_cache_matches_the_vector_store_and_follows_revisions(
    fresh: tuple[Index, Path],
) -> None:
    index, docs = fresh
    folder = index.settings.store / CACHE_DIR
    cold = select(index, SelectionRequest(k=5)).to_dict()
    files = sorted(p.name for p in folder.glob("*.npz"))
    assert len(files) == 2
    warm = load_passages(index)
    rows = index.catalog.db.execute(
        "SELECT node_id, vector_id FROM nodes WHERE level = 'passage'"
    ).fetchall()
    vid = {r["node_id"]: r["vector_id"] for r in rows}
    stored = index.vectors.get(sorted(set(vid.values())))
    for i, node_id in enumerate(warm.node_ids):
        assert np.array_equal(warm.vectors[i], stored[vid[node_id]])
    assert select(index, SelectionRequest(k=5)).to_dict() == cold

    for p in folder.glob("*.npz"):
        p.write_bytes(b"not a matrix")
    assert select(index, SelectionRequest(k=5)).to_dict() == cold
    shutil.rmtree(folder)
    assert select(index, SelectionRequest(k=5)).to_dict() == cold
    assert len(list(folder.glob("*.npz"))) == 2

    path = docs / "notes-2.md"
    path.write_text(path.read_text() + "\n## Added\n\nA closing paragraph on lighthouse lamps.\n")
    assert index.ingest_paths([docs]).ok
    after = select(index, SelectionRequest(k=5))
    assert after.n_passages == 81
    builds = set(index.catalog.current_builds().values())
    assert {int(p.name[1:].split("-")[0]) for p in folder.glob("*.npz")} == builds

    uncached = Index(index.settings.model_copy(update={"select_vector_cache": False}))
    shutil.rmtree(folder)
    assert select(uncached, SelectionRequest(k=5)).to_dict() == after.to_dict()
    assert not folder.exists()


# CLI ---------------------------------------------------------------------------------------------
def test_cli_select_json(hashed: Index) -> None:
    from api.cli import main

    store = str(hashed.settings.store)
    runner = CliRunner()
    out = runner.invoke(
        main,
        [
            "select",
            "-k",
            "3",
            "--docs",
            "notes-1.md,manual.md",
            "--per-cluster",
            "2",
            "--method",
            "rank",
            "--store",
            store,
            "--json",
        ],
    )
    assert out.exit_code == 0, out.output
    body = json.loads(out.output)
    direct = select(
        hashed,
        SelectionRequest(k=3, documents=("notes-1.md", "manual.md"), per_cluster=2, method="rank"),
    )
    assert body == json.loads(json.dumps(direct.to_dict()))
    SelectResponse.model_validate(body)

    repeated = runner.invoke(
        main,
        [
            "select",
            "-k",
            "3",
            "--docs",
            "notes-1.md",
            "--docs",
            "manual.md",
            "--per-cluster",
            "2",
            "--method",
            "rank",
            "--store",
            store,
            "--json",
        ],
    )
    assert json.loads(repeated.output) == body

    text = runner.invoke(main, ["select", "--budget-tokens", "600", "--store", store])
    assert text.exit_code == 0 and "K by budget" in text.output

    bad = runner.invoke(
        main, ["select", "-k", "3", "--docs", "nope.md", "--store", store, "--json"]
    )
    assert bad.exit_code == 1
    assert json.loads(bad.stdout)["error"]["code"] == "not_found"


# HTTP --------------------------------------------------------------------------------------------
@pytest.fixture
def client(hashed: Index) -> Iterator[TestClient]:
    app = FastAPI()
    app.state.index = hashed
    app.include_router(select_router)

    @app.exception_handler(OverstoryError)
    async def _error(request: Request, exc: OverstoryError) -> JSONResponse:
        return JSONResponse(error_body(exc), status_code=exc.status)

    with TestClient(app) as c:
        yield c


def test_http_select(client: TestClient, hashed: Index) -> None:
    res = client.post("/v1/select", json={"k": 4, "documents": ["manual.md"], "per_cluster": 2})
    assert res.status_code == 200, res.text
    body = res.json()
    direct = select(hashed, SelectionRequest(k=4, documents=("manual.md",), per_cluster=2))
    assert body == json.loads(json.dumps(direct.to_dict()))
    assert body["k_rule"] == "request" and len(body["clusters"]) == 4
    rep = body["clusters"][0]["representatives"][0]
    assert {
        "rank",
        "node_id",
        "kind",
        "level",
        "score",
        "text",
        "doc_id",
        "source",
        "revision",
        "heading_path",
        "char_start",
        "char_end",
        "pages",
        "covers",
        "label",
        "distance_to_centroid",
    } <= set(rep)

    budget = client.post("/v1/select", json={"budget_tokens": 500, "method": "balanced"})
    assert budget.status_code == 200 and budget.json()["k_rule"] == "budget"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"k": 3, "documents": ["nope.md"]}, 404, "not_found"),
        ({"k": 3, "under": "no-such-node"}, 404, "not_found"),
        ({"k": 41, "documents": ["notes-1.md"]}, 422, "invalid_request"),
    ],
)
def test_http_select_errors(
    client: TestClient, body: dict[str, Any], status: int, code: str
) -> None:
    res = client.post("/v1/select", json=body)
    assert res.status_code == status
    assert res.json()["error"]["code"] == code


def test_http_select_rejects_k_below_one(client: TestClient) -> None:
    res = client.post("/v1/select", json={"k": 0})
    assert res.status_code == 422


@pytest.mark.parametrize(
    "body",
    [
        {"k": 3, "per_cluster": 51},
        {"k": 3, "documents": []},
        {"k": 3, "method": "kmedoids"},
        {"budget_tokens": 0},
        {"k": "3"},
        {"k": 3, "seed": 1},
    ],
)
def test_http_select_refuses_what_the_model_refuses(client: TestClient, body: Any) -> None:
    assert client.post("/v1/select", json=body).status_code == 422


def test_cli_select_refuses_what_the_model_refuses(hashed: Index) -> None:
    from api.cli import main

    store = str(hashed.settings.store)
    for args, needle in (
        (["-k", "0"], "between 1 and"),
        (["-k", "3", "--per-cluster", "51"], "per_cluster"),
        (["--budget-tokens", "0"], "budget_tokens"),
    ):
        out = CliRunner().invoke(main, ["select", *args, "--store", store])
        assert out.exit_code == 1, out.output
        assert needle in out.output and "Traceback" not in out.output


def test_the_service_serves_select_to_readers(hashed: Index) -> None:
    from tests.http_support import service

    with service(hashed.settings, index=hashed) as svc:
        ok = svc.client.post("/v1/select", json={"k": 3}, headers=svc.as_role("reader"))
        assert ok.status_code == 200, ok.text
        assert ok.json()["k"] == 3
        assert svc.client.post("/v1/select", json={"k": 3}).status_code == 401
        missing = svc.client.post(
            "/v1/select", json={"k": 3, "documents": ["nope.md"]}, headers=svc.as_role("reader")
        )
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "not_found"
