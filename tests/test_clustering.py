"""Issue 3: cluster levels where a document has no usable headings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from indexer.clustering import BACKENDS, ClusterRestructure, make_clusterer
from indexer.clustering.base import candidate_ks
from indexer.clustering.reuse import clusters_of
from indexer.embedding import Embedder
from indexer.embedding.hashing import HashingEmbedder
from indexer.hashing import hash_text
from indexer.index import Index
from indexer.settings import Settings
from indexer.tree import DOCUMENT, PASSAGE, TreeNode, compute_hashes
from tests.helpers import ROOT, run_cli, walk

TOPICS = ROOT / "tests" / "data" / "five_topics.jsonl"
TRANSCRIPT = ROOT / "fixtures" / "field-service-call.txt"
HASHING = {"OVERSTORY_EMBEDDER": "hashing"}
# Each topic passage is 84-110 model tokens: with 160-token chunks every passage is exactly one
# chunk (two never fit together, and a whole passage is longer than the overlap).
ONE_PASSAGE_PER_CHUNK = 160


def _topic_rows() -> list[dict[str, str]]:
    return [json.loads(line) for line in TOPICS.read_text(encoding="utf-8").splitlines()]


def _write_topics_doc(path: Path, rows: list[dict[str, str]]) -> str:
    # Three newlines: the chunker's paragraph separator.
    text = "\n\n\n".join(r["text"] for r in rows) + "\n"
    path.write_text(text, encoding="utf-8")
    return text


def _topic_of(text: str, rows: list[dict[str, str]], node: dict[str, Any]) -> str:
    """The topic whose passage holds most of the node's characters."""
    best, best_overlap = "", -1
    for r in rows:
        start = text.find(r["text"])
        overlap = min(node["char_end"], start + len(r["text"])) - max(node["char_start"], start)
        if overlap > best_overlap:
            best, best_overlap = r["topic"], overlap
    return best


def _passages(node: dict[str, Any]) -> list[dict[str, Any]]:
    return [n for n in walk(node) if n["level"] == PASSAGE]


def _check_invariants(root: dict[str, Any], *, threshold: int) -> None:
    """What every tree with cluster levels must satisfy, as served by ``tree --json``."""
    nodes = walk(root)
    assert [n["node_id"] for n in nodes] == list(dict.fromkeys(n["node_id"] for n in nodes))
    for node in nodes:
        if node["level"] == PASSAGE:
            continue
        direct = [c for c in node["children"] if c["level"] == PASSAGE]
        assert len(direct) <= threshold, (node["level"], node["title"], len(direct))
        if node["level"] != "cluster":
            continue
        below = _passages(node)
        assert below and node["children"]
        assert node["title"]
        assert node["covers"]["ids"] == [p["node_id"] for p in below]
        assert node["covers"]["passages"] == len(below)
        assert node["char_start"] == min(p["char_start"] for p in below)
        assert node["char_end"] == max(p["char_end"] for p in below)
        starts = [c["char_start"] for c in node["children"] if c["level"] == PASSAGE]
        assert starts == sorted(starts)
        firsts = [
            _passages(c)[0]["char_start"] for c in node["children"] if c["level"] == "cluster"
        ]
        assert firsts == sorted(firsts)


# 1. topics are recovered; the headingless fixture gets depth >= 2 ----------------------------
def test_clusters_recover_five_shuffled_topics(tmp_path: Path, minilm: Embedder) -> None:
    rows = _topic_rows()
    assert len(rows) == 60 and len({r["topic"] for r in rows}) == 5
    text = _write_topics_doc(tmp_path / "topics.txt", rows)
    settings = Settings(store=tmp_path / "store", chunk_tokens=ONE_PASSAGE_PER_CHUNK)
    index = Index(settings, embedder=minilm)
    report = index.ingest_paths([tmp_path / "topics.txt"])
    assert report.ok, report.errors
    assert report.documents[0].passages == 60
    root = index.tree(report.documents[0].doc_id)
    assert root["level"] == DOCUMENT
    assert all(c["level"] == "cluster" for c in root["children"])
    truth, found = [], []
    for label, cluster in enumerate(root["children"]):
        for p in _passages(cluster):
            truth.append(_topic_of(text, rows, p))
            found.append(label)
    assert len(truth) == 60
    assert adjusted_rand_score(truth, found) >= 0.8
    _check_invariants(root, threshold=settings.cluster_threshold)


def test_headingless_transcript_gets_cluster_levels(tmp_path: Path, minilm: Embedder) -> None:
    index = Index(Settings(store=tmp_path / "store"), embedder=minilm)
    report = index.ingest_paths([TRANSCRIPT])
    assert report.ok, report.errors
    doc = report.documents[0]
    assert doc.passages > 24
    assert doc.depth >= 2
    root = index.tree(doc.doc_id)
    assert {c["level"] for c in root["children"]} == {"cluster"}
    assert 2 <= len(root["children"]) <= 10
    assert all(c["summary"] for c in walk(root) if c["level"] == "cluster")
    _check_invariants(root, threshold=24)


# 2. two runs give identical trees and hashes -------------------------------------------------
def test_two_builds_are_identical(tmp_path: Path, minilm: Embedder) -> None:
    trees = []
    for run in ("a", "b"):
        index = Index(Settings(store=tmp_path / run), embedder=minilm)
        assert index.ingest_paths([TRANSCRIPT]).ok
        trees.append(json.dumps(index.tree(TRANSCRIPT.name), sort_keys=True))
        index.close()
    assert trees[0] == trees[1]
    assert '"level": "cluster"' in trees[0]


def test_two_processes_give_identical_trees(tmp_path: Path) -> None:
    outputs = []
    for run, hash_seed in (("a", "1"), ("b", "2")):
        env = {**HASHING, "PYTHONHASHSEED": hash_seed}
        store = str(tmp_path / run)
        run_cli("ingest", str(TRANSCRIPT), "--store", store, "--json", env=env)
        doc_id = TRANSCRIPT.name
        _, tree, _ = run_cli("tree", doc_id, "--store", store, "--json", env=env)
        outputs.append(json.dumps(tree, sort_keys=True))
    assert outputs[0] == outputs[1]


# 3. tiny and degenerate inputs -----------------------------------------------------------
@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_every_backend_honours_the_contract(name: str) -> None:
    clusterer = make_clusterer(name)
    rng = np.random.default_rng(3)
    centres = rng.normal(size=(4, 16))
    x = np.repeat(centres, 10, axis=0) + rng.normal(scale=0.01, size=(40, 16))
    for n in (0, 1, 2, 3, 5, 40):
        labels = clusterer.cluster(x[:n], target_branching=8, seed=0)
        assert labels.shape == (n,)
        if n:
            assert labels[0] == 0 and set(labels.tolist()) == set(range(labels.max() + 1))
            assert labels.max() + 1 <= max(candidate_ks(n, target_branching=8) or [1])
    again = clusterer.cluster(x, target_branching=8, seed=0)
    assert np.array_equal(again, clusterer.cluster(x, target_branching=8, seed=0))
    assert clusterer.cluster(x, n_clusters=4, seed=0).max() + 1 <= 4
    degenerate = np.vstack([np.ones((6, 16)), np.zeros((2, 16)), np.full((2, 16), np.nan)])
    labels = clusterer.cluster(degenerate, target_branching=8, seed=0)
    assert labels.shape == (10,) and labels.min() == 0


def _flat_tree(texts: list[str]) -> TreeNode:
    root = TreeNode(DOCUMENT, None, [], 0, 0, None)
    pos = 0
    for t in texts:
        root.children.append(TreeNode(PASSAGE, None, [], pos, pos + len(t), None, text=t))
        pos += len(t) + 2
    root.char_end = pos
    for p in root.children:
        p.hash = hash_text(p.text or "")
    return root


def _vectors(tree: TreeNode) -> dict[str, np.ndarray]:
    passages = tree.passages()
    vecs = HashingEmbedder().embed([p.text or "" for p in passages])
    return {p.hash: v for p, v in zip(passages, vecs, strict=True)}


@pytest.mark.parametrize("name", sorted(BACKENDS))
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 7])
def test_tiny_documents_restructure_without_error(name: str, n: int) -> None:
    rows = _topic_rows()
    tree = _flat_tree([r["text"] for r in rows[:n]])
    hook = ClusterRestructure(make_clusterer(name), threshold=2, branching=2)
    hook.restructure(tree, _vectors(tree))
    compute_hashes(tree)
    assert sorted(p.text or "" for p in tree.passages()) == sorted(r["text"] for r in rows[:n])
    assert [node.ordinal for node in tree.walk()] == list(range(sum(1 for _ in tree.walk())))
    for node in tree.walk():
        assert sum(1 for c in node.children if c.is_passage) <= 2
        if node.level == "cluster":
            assert node.children and node.title


def test_identical_and_vectorless_passages() -> None:
    same = _topic_rows()[0]["text"]
    tree = _flat_tree([same] * 100 + [_topic_rows()[1]["text"]])
    vectors = {tree.children[0].hash: np.full(384, np.nan, dtype=np.float32)}  # one missing
    hook = ClusterRestructure(make_clusterer("kmeans"), threshold=24, branching=8)
    hook.restructure(tree, vectors)
    assert len(tree.passages()) == 101
    for node in tree.walk():
        assert sum(1 for c in node.children if c.is_passage) <= 24


@pytest.mark.parametrize("n", [1, 2, 3])
def test_tiny_and_duplicate_documents_ingest(tmp_path: Path, n: int) -> None:
    rows = _topic_rows()
    settings = Settings(
        store=tmp_path / "store",
        embedder="hashing",
        chunk_tokens=ONE_PASSAGE_PER_CHUNK,
        cluster_threshold=2,
    )
    index = Index(settings)
    _write_topics_doc(tmp_path / "tiny.txt", rows[:n])
    _write_topics_doc(tmp_path / "same.txt", [rows[0]] * 40)
    report = index.ingest_paths([tmp_path / "tiny.txt", tmp_path / "same.txt"])
    assert report.ok, report.errors
    for doc in report.documents:
        _check_invariants(index.tree(doc.doc_id), threshold=2)
    assert report.documents[0].passages == n
    assert report.documents[1].passages == 40


# a flat heading section gets cluster levels; the others are left alone -------------------------
def test_flat_heading_section_gets_cluster_levels(tmp_path: Path) -> None:
    rows = _topic_rows()
    body = "\n\n\n".join(r["text"] for r in rows)
    md = (
        "# Field Handbook\n\n## Safety\n\nWear gloves and eye protection at all times.\n\n"
        f"## Notes\n\n{body}\n\n## Contacts\n\nCall the service desk on extension 4410.\n"
    )
    (tmp_path / "handbook.md").write_text(md, encoding="utf-8")
    settings = Settings(
        store=tmp_path / "store", embedder="hashing", chunk_tokens=ONE_PASSAGE_PER_CHUNK
    )
    index = Index(settings)
    report = index.ingest_paths([tmp_path / "handbook.md"])
    assert report.ok, report.errors
    root = index.tree(report.documents[0].doc_id)
    _check_invariants(root, threshold=24)
    chapters = {c["title"]: c for c in root["children"]}
    notes = chapters["Notes"]
    assert notes["children"] and {c["level"] for c in notes["children"]} == {"cluster"}
    assert len(_passages(notes)) == 60
    for cluster in (n for n in walk(notes) if n["level"] == "cluster"):
        assert cluster["heading_path"] == ["Field Handbook", "Notes"]
        assert cluster["pages"] is None
    for title in ("Safety", "Contacts"):
        assert [c["level"] for c in chapters[title]["children"]] == [PASSAGE]


# 4. an edit recomputes only the clusters and summaries on its path -------------------------------
def _ancestor_ids(root: dict[str, Any], passage_ids: set[str]) -> set[str]:
    out: set[str] = set()

    def visit(node: dict[str, Any], path: list[str]) -> None:
        if node["node_id"] in passage_ids:
            out.update(path)
        for child in node["children"]:
            visit(child, [*path, node["node_id"]])

    visit(root, [])
    return out


def test_one_passage_edit_recomputes_only_its_path(tmp_path: Path) -> None:
    rows = _topic_rows()
    path = tmp_path / "topics.txt"
    text = _write_topics_doc(path, rows)
    settings = Settings(
        store=tmp_path / "store",
        embedder="hashing",
        chunk_tokens=ONE_PASSAGE_PER_CHUNK,
        cluster_threshold=8,  # nested clusters: a deeper tree than the default gives 60 passages
    )
    index = Index(settings)
    first = index.ingest_paths([path]).documents[0]
    before = index.tree(first.doc_id)
    assert first.depth >= 3
    old_clusters = {n["hash"] for n in walk(before) if n["level"] == "cluster"}

    target = rows[17]["text"]
    path.write_text(text.replace(target, target.replace(" the ", " this ", 1)), encoding="utf-8")
    report = index.ingest_paths([path])
    doc = report.documents[0]
    after = index.tree(doc.doc_id)
    old_hashes = {p["hash"] for p in _passages(before)}
    changed = {p["node_id"] for p in _passages(after) if p["hash"] not in old_hashes}
    assert len(changed) == 1
    on_path = _ancestor_ids(after, changed)
    assert report.summarizer_calls == len(on_path) <= doc.depth
    assert report.summarizer_calls * 4 < doc.summaries
    kept = {n["hash"] for n in walk(after) if n["level"] == "cluster"} & old_clusters
    assert len(kept) == len(old_clusters) - (len(on_path) - 1)  # every cluster off the path
    _check_invariants(after, threshold=8)


def test_reuse_or_recluster_depends_on_how_much_changed() -> None:
    rows = _topic_rows()
    texts = [r["text"] for r in rows]
    hook = ClusterRestructure(make_clusterer("kmeans"), threshold=24, branching=8)
    first = _flat_tree(texts)
    hook.restructure(first, _vectors(first))
    compute_hashes(first)
    previous = clusters_of(first)

    added = _flat_tree([*texts, "Bees collect nectar and pollen from clover and heather."])
    hook.restructure(added, _vectors(added), previous=previous)
    compute_hashes(added)
    assert hook.last[0]["mode"] == "reused"
    new_clusters = {n.hash for n in added.walk() if n.level == "cluster"}
    old_clusters = {n.hash for n in first.walk() if n.level == "cluster"}
    assert len(old_clusters - new_clusters) == 1  # only the cluster that took the new passage

    rewritten = _flat_tree([t.upper() if i % 2 else t for i, t in enumerate(texts)])
    hook.restructure(rewritten, _vectors(rewritten), previous=previous)
    assert hook.last[0]["mode"] == "clustered"


# the CLI shows cluster levels like heading levels ----------------------------------------------
def test_cli_tree_shows_cluster_nodes_like_heading_nodes(tmp_path: Path) -> None:
    store = str(tmp_path / "store")
    run_cli("ingest", str(TRANSCRIPT), "--store", store, "--json", env=HASHING)
    _, tree, _ = run_cli("tree", TRANSCRIPT.name, "--store", store, "--json", env=HASHING)
    clusters = [n for n in walk(tree) if n["level"] == "cluster"]
    assert clusters
    for c in clusters:
        assert set(c) == set(tree)  # same fields as the document node
        assert c["summary"] and c["summarizer"]["backend"] == "extractive"
        assert c["heading_path"] == tree["heading_path"]
        assert len(c["covers"]["ids"]) == c["covers"]["passages"] > 0
    _, text, _ = run_cli("tree", TRANSCRIPT.name, "--store", store, env=HASHING)
    assert "cluster: " in text
