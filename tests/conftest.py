"""Shared test fixtures: real SQLite and Chroma in temporary folders, real or fake embedders."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
# The corpus suite (tests/corpus) reads real manuals from Debian packages: `make test-corpus`.
collect_ignore = [] if os.environ.get("OVERSTORY_CORPUS_SUITE") else ["corpus"]
os.environ.pop("OVERSTORY_CONFIG", None)
for _name in [k for k in os.environ if k.startswith("OVERSTORY_")]:
    del os.environ[_name]

import pytest  # noqa: E402

from indexer.embedding import Embedder, make_embedder  # noqa: E402
from indexer.index import Index  # noqa: E402
from indexer.settings import Settings  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


@pytest.fixture(scope="session")
def minilm() -> Embedder:
    """The real bundled all-MiniLM-L6-v2 embedder as configured by default (ONNX Runtime),
    loaded once per test session."""
    return make_embedder(Settings(ingest_threads=2))


@pytest.fixture
def fast_settings(tmp_path: Path) -> Settings:
    """Settings for a store in a temp folder with the deterministic hashing embedder."""
    return Settings(store=tmp_path / "store", embedder="hashing")


@pytest.fixture
def fast_index(fast_settings: Settings) -> Iterator[Index]:
    """An empty index using the hashing embedder (fast unit tests)."""
    index = Index(fast_settings)
    yield index
    index.close()


@pytest.fixture
def fixtures_copy(tmp_path: Path) -> Path:
    """A private, editable copy of ``fixtures/``."""
    dest = tmp_path / "manuals"
    shutil.copytree(FIXTURES, dest, ignore=shutil.ignore_patterns("*.jsonl", "README.md"))
    return dest


@pytest.fixture(scope="session")
def fixtures_index(tmp_path_factory: pytest.TempPathFactory, minilm: Embedder) -> Index:
    """All fixture manuals ingested once with the real embedding model. Read-only for tests."""
    store = tmp_path_factory.mktemp("fixtures-store")
    settings = Settings(store=store)
    index = Index(settings, embedder=minilm)
    report = index.ingest_paths([FIXTURES])
    assert report.ok, report.errors
    return index
