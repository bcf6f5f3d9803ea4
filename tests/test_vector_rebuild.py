"""The vector store is derived data: a damaged one is rebuilt from SQLite, leftovers of builds
that never got published are swept, and nothing SQLite holds is encoded again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from indexer.embedding.hashing import HashingEmbedder
from indexer.errors import BackendError
from indexer.index import Index
from indexer.settings import Settings
from indexer.store.vectors.recorded import RecordedVectorStore
from retriever.retriever import Retriever
from tests.helpers import ROOT


class CountingEmbedder(HashingEmbedder):
    """The hashing embedder, counting what it encodes."""

    def __init__(self) -> None:
        super().__init__()
        self.encoded = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.encoded += len(texts)
        return super().embed(texts)


@pytest.fixture
def built(tmp_path: Path) -> Path:
    store = tmp_path / "store"
    index = Index(Settings(store=store, embedder="hashing"))
    assert index.ingest_paths([ROOT / "fixtures" / "pump-x200.md"]).ok
    index.close()
    return store


def _damage(store: Path) -> None:
    """What a kill mid-write can leave: Chroma's own database cut in half."""
    db = store / "chroma" / "chroma.sqlite3"
    with db.open("r+b") as f:
        f.truncate(db.stat().st_size // 2)


def _answers(index: Index) -> int:
    retriever = Retriever(index, embedder=HashingEmbedder())
    return len(retriever.query(retriever.request("replace the mechanical seal", k=5)).results)


def test_a_damaged_store_is_rebuilt_from_sqlite_without_encoding(built: Path) -> None:
    _damage(built)
    embedder = CountingEmbedder()
    index = Index(Settings(store=built, embedder="hashing"), embedder=embedder)
    assert _answers(index) == 5
    repair = index.vector_repair
    assert repair is not None and repair.rebuilt_from is not None and repair.rebuilt_from.exists()
    assert repair.restored > 100 and repair.missing == []
    assert embedder.encoded == 0
    check = index.check()
    assert check["consistent"] and check["vectors_stored"] == check["vectors_expected"]
    # a second process finds it sound
    again = Index(Settings(store=built, embedder="hashing"))
    assert _answers(again) == 5 and again.vector_repair is not None
    assert again.vector_repair.rebuilt_from is None


def test_vectors_sqlite_lacks_are_encoded_again_only_those(built: Path) -> None:
    index = Index(Settings(store=built, embedder="hashing"))
    total = index.check()["vectors_expected"]
    copies = index.catalog.vector_copies
    dropped = sorted(index.catalog.served_vector_ids())[:7]
    copies.delete(dropped)  # as a store written before SQLite kept vectors
    index.close()
    _damage(built)
    embedder = CountingEmbedder()
    index = Index(Settings(store=built, embedder="hashing"), embedder=embedder)
    assert _answers(index) == 5
    assert index.vector_repair is not None and sorted(index.vector_repair.missing) == dropped
    assert embedder.encoded == 7
    assert index.check()["consistent"] and index.check()["vectors_stored"] == total


def test_leftovers_of_an_unpublished_build_are_swept(built: Path) -> None:
    index = Index(Settings(store=built, embedder="hashing"))
    expected = index.check()["vectors_expected"]
    # what a build killed after embedding leaves: vectors nothing served references
    ids = [f"left:p:{i}" for i in range(40)]
    vecs = HashingEmbedder().embed([f"leftover passage {i}" for i in range(40)])
    index.vectors.upsert(ids, vecs, doc_ids=["gone.md"] * 40, kinds=["p"] * 40)
    assert index.vectors.count() == expected + 40
    check = index.check()
    assert check["consistent"] and check["swept"] == 40 and index.vectors.count() == expected
    # and publishing any document sweeps them too
    index.vectors.upsert(ids, vecs, doc_ids=["gone.md"] * 40, kinds=["p"] * 40)
    assert index.ingest_paths([ROOT / "fixtures" / "field-service-call.txt"]).ok
    assert index.vectors.existing(ids) == set()
    assert index.catalog.vector_copies.unreferenced() == []


def test_a_vector_lost_between_sqlite_and_chroma_is_put_back(built: Path) -> None:
    embedder = CountingEmbedder()
    index = Index(Settings(store=built, embedder="hashing"), embedder=embedder)
    assert isinstance(index.vectors, RecordedVectorStore)
    lost = sorted(index.catalog.served_vector_ids())[:5]
    index.vectors.inner.delete(lost)  # the copy was written, the vector store write was not
    check = index.check()
    assert check["consistent"] and check["restored"] == 5 and embedder.encoded == 0
    assert index.vectors.existing(lost) == set(lost)


def test_the_damaged_store_is_kept_aside(built: Path) -> None:
    _damage(built)
    index = Index(Settings(store=built, embedder="hashing"))
    assert _answers(index) == 5
    aside = index.vector_repair.rebuilt_from if index.vector_repair else None
    assert aside is not None and (aside / "chroma.sqlite3").exists()


class StopsAfterPassages(CountingEmbedder):
    """Embeds the passages, then fails on the summaries: an interrupted build."""

    def embed(self, texts: list[str]) -> np.ndarray:
        if self.encoded:
            raise BackendError("the encoder went away")
        return super().embed(texts)


def test_a_check_keeps_an_interrupted_builds_vectors_for_the_retry(tmp_path: Path) -> None:
    settings = Settings(store=tmp_path / "store", embedder="hashing")
    manual = ROOT / "fixtures" / "pump-x200.md"
    interrupted = StopsAfterPassages()
    index = Index(settings, embedder=interrupted)
    assert not index.ingest_paths([manual]).ok
    passages = interrupted.encoded
    assert passages > 0 and index.vectors.count() == passages
    check = index.check()
    assert check["kept_for_retry"] == passages and check["swept"] == 0
    assert check["consistent"], check
    assert index.check(repair=True)["repaired"]["deleted"] == 0
    index.close()
    retry = CountingEmbedder()
    index = Index(settings, embedder=retry)
    report = index.ingest_paths([manual])
    assert report.ok
    assert retry.encoded == report.documents[0].embedded  # only what was not there yet
    assert retry.encoded < report.documents[0].summaries + 1  # no passage encoded again
    check = index.check()
    assert check["kept_for_retry"] == 0 and check["consistent"]
    index.close()
