"""Warming a retriever: every served build's inner nodes read in bulk, exactly what a query
would read one build at a time, and answers unchanged."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from api.service.warmup import start_warmup
from indexer.index import Index
from indexer.settings import Settings
from retriever.retriever import Retriever
from retriever.skeleton import Skeletons


def _manual(name: str, n: int) -> bytes:
    parts = [f"# {name} manual\n\nThe {name} unit, its parts and their care.\n"]
    for i in range(1, n + 1):
        parts.append(
            f"## {i} Part {i} of the {name}\n\nPart {i} of the {name} is checked every {i * 100} "
            f"hours; replace it when the gauge reads below {i}.5 bar.\n"
        )
    return "\n".join(parts).encode()


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Index]:
    idx = Index(Settings(store=tmp_path / "store", embedder="hashing"))
    for name, n in (("pump", 4), ("fan", 3), ("valve", 5)):
        idx.ingest_bytes(_manual(name, n), doc_id=f"{name}.md")
    yield idx
    idx.close()


def test_warm_reads_each_served_build_as_a_lazy_read_would(index: Index) -> None:
    builds = sorted(Retriever(index).snapshots.take().builds())
    warmed = Skeletons(index.catalog)
    assert warmed.warm(builds, chunk=2) == 3
    assert warmed.warm(builds) == 0
    lazy = Skeletons(index.catalog)
    for b in builds:
        assert warmed.of_build(b) == lazy.of_build(b)
        assert len(warmed.of_build(b)) > 1


def test_warm_stops_once_max_nodes_are_held(index: Index) -> None:
    builds = sorted(Retriever(index).snapshots.take().builds())
    small = Skeletons(index.catalog, max_nodes=1)
    assert small.warm(builds, chunk=1) == 1


def test_a_warmed_retriever_answers_as_a_cold_one(index: Index) -> None:
    cold = Retriever(index)
    warm = Retriever(index)
    thread = start_warmup(warm)
    thread.join()
    assert warm.skeletons.warm(warm.snapshots.take().builds()) == 0
    for q in ("when is part 2 of the fan checked", "valve gauge 3.5 bar", "the pump manual"):
        assert warm.query(warm.request(q, k=6)) == cold.query(cold.request(q, k=6))
