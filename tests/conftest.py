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
from tests.pg_support import PostgresServer, PostgresUnavailable  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


@pytest.fixture(scope="session")
def minilm() -> Embedder:
    """The real bundled all-MiniLM-L6-v2 embedder as configured by default (ONNX Runtime),
    loaded once per test session."""
    return make_embedder(Settings(ingest_threads=2))


BACKENDS = ("sqlite", "postgres")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "backends: run on a SQLite and on a PostgreSQL catalog (`catalog_backend`)"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests marked ``backends`` run once per catalog backend; the others on SQLite only,
    unless TEST_CATALOG_BACKENDS (e.g. ``postgres``) names the backends of every test."""
    forced = [b for b in os.environ.get("TEST_CATALOG_BACKENDS", "").split(",") if b]
    marked = metafunc.definition.get_closest_marker("backends") is not None
    backends = forced or (list(BACKENDS) if marked else [])
    explicit = {
        n.strip()
        for m in metafunc.definition.iter_markers("parametrize")
        for n in (m.args[0].split(",") if isinstance(m.args[0], str) else m.args[0])
    }
    for name, scope in (("catalog_backend", "function"), ("module_catalog_backend", "module")):
        if name in metafunc.fixturenames and backends and name not in explicit:
            metafunc.parametrize(name, backends, indirect=True, scope=scope)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A real PostgreSQL 15 cluster for the session (skipped when it cannot be started)."""
    try:
        server = PostgresServer().start()
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL is not available: {exc}")
    yield server
    server.stop()


@pytest.fixture
def catalog_backend(request: pytest.FixtureRequest) -> str:
    """``sqlite`` or ``postgres``: the catalog backend of the stores this test makes."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture
def database_url(catalog_backend: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """The ``database_url`` setting of the test's backend: empty for SQLite, a fresh
    PostgreSQL database (migrated, no rows) for ``postgres``, dropped afterwards."""
    if catalog_backend == "sqlite":
        yield ""
        return
    server: PostgresServer = request.getfixturevalue("postgres")
    url = server.create_database()
    yield url
    server.drop_database(url)


@pytest.fixture(scope="module")
def module_catalog_backend(request: pytest.FixtureRequest) -> str:
    """:func:`catalog_backend` of the module-scoped stores."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture(scope="module")
def module_database_url(
    module_catalog_backend: str, request: pytest.FixtureRequest
) -> Iterator[str]:
    """:func:`database_url` of the module-scoped stores."""
    if module_catalog_backend == "sqlite":
        yield ""
        return
    server: PostgresServer = request.getfixturevalue("postgres")
    url = server.create_database()
    yield url
    server.drop_database(url)


@pytest.fixture
def fast_settings(tmp_path: Path, database_url: str) -> Settings:
    """Settings for a store in a temp folder with the deterministic hashing embedder (and the
    test's catalog backend)."""
    return Settings(store=tmp_path / "store", embedder="hashing", database_url=database_url)


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
