"""What the reranker sees: the fused top candidates of each kind and the best of each list, so
that a passage only BM25 ranks first is not lost to rank fusion."""

from __future__ import annotations

from pathlib import Path

from indexer.index import Index
from indexer.settings import Settings
from retriever.request import QueryRequest
from retriever.retriever import Pipeline, Retriever


def _pages(tmp_path: Path) -> list[Path]:
    numeric = ["# Numeric Library Manual"]
    for name in ("Addition", "Subtraction", "Rounding", "Precision", "Exponents"):
        numeric.append(
            f"## {name}\n\nThe {name.lower()} functions take a floating-point number and "
            f"return a floating-point number; floating-point values keep their precision."
        )
    numeric.append("## Roots\n\nSet rop to the square root of op, rounded in the direction rnd.")
    plumbing = ["# Plumbing Guide"]
    for i in range(40):
        plumbing.append(f"## Part {i}\n\nFit part {i} by hand, then tighten it {i % 4} turns.")
    plumbing.append("## Gauges\n\nA gauge reads a floating-point value of pressure.")
    paths = []
    for name, lines in (("numeric.md", numeric), ("plumbing.md", plumbing)):
        (tmp_path / name).write_text("\n\n".join(lines) + "\n")
        paths.append(tmp_path / name)
    return paths


def test_each_lists_best_passages_are_reranked_however_fusion_places_them(
    tmp_path: Path,
) -> None:
    index = Index(Settings(store=tmp_path / "store", embedder="hashing"))
    assert index.ingest_paths(_pages(tmp_path)).ok
    retriever = Retriever(index, pipeline=Pipeline(rerank_candidates=2))
    question = "square root of a floating-point value; tighten the part by hand"
    snapshot = retriever.snapshots.take()
    vector = retriever.encode(question)
    request = QueryRequest(query=question, k=1, kinds=["passage"])
    prepared = retriever.prepare(request, vector, snapshot)
    pool = prepared.passages + prepared.rest
    assert len(pool) > 12
    head = {c.node_id for c in prepared.passages}
    for source in ("dense", "lexical"):
        scored = [c for c in pool if getattr(c, source) is not None]
        best = sorted(scored, key=lambda c: -float(getattr(c, source)))[:5]
        assert {c.node_id for c in best} <= head, source
    # the fused top two as well, and nothing else
    fused = sorted(pool, key=lambda c: -c.fused)[:2]
    assert {c.node_id for c in fused} <= head and len(head) <= 12
    index.close()
