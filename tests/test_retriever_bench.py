"""The retriever benchmark measures the query encoder the service runs, not another one."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.bench_retriever import query_encoder
from indexer.index import Index
from indexer.settings import Settings
from retriever.retriever import Retriever


@pytest.mark.parametrize("runtime", ["onnx", "torch"])
def test_the_benchmark_encodes_queries_as_the_service_retriever_does(
    tmp_path: Path, runtime: str
) -> None:
    settings = Settings(store=tmp_path / "store", encoder_runtime=runtime)
    index = Index(settings)
    try:
        served = Retriever(index).embedder  # what a retriever without an embedder makes
        measured = query_encoder(settings)
        assert type(measured) is type(served)
        assert (measured.name, measured.threads) == (served.name, served.threads)
    finally:
        index.close()
