"""With ``embed_headings``, a passage is embedded under its section's heading: the heading names
what its words leave out (an FAQ's answer under its question, a setting's value under its name).
Off by default, where the text is embedded alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from indexer.embedding.hashing import HashingEmbedder
from indexer.encoders import encode_into
from indexer.index import Index
from indexer.settings import Settings
from indexer.store.vectors.base import VectorStore
from indexer.vector_text import embedding_key, embedding_text, within
from retriever.retriever import Retriever

# Two answers worded the same; only their questions say which is which.
FAQ = """# Daemon FAQ

## Network

### How do I change the port the daemon listens on?

Edit the second line of the main configuration file and write the new number there, then
restart the service so that it takes effect.

### How do I keep the log files from growing without bound?

Edit the second line of the main configuration file and write the new number there, then
restart the service so that it takes effect.
"""


class RecordingEmbedder(HashingEmbedder):
    """The hashing embedder, keeping every text it encodes."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts += texts
        return super().embed(texts)


class _Discard:
    def upsert(self, *args: object, **kwargs: object) -> None:
        pass


def test_a_node_is_embedded_under_its_nearest_heading_below_the_title() -> None:
    path = within(["Daemon FAQ", "Network", "Ports", "How do I change it?"], ["Daemon FAQ"])
    assert path == ("Network", "Ports", "How do I change it?")
    assert embedding_text(path, "Edit the line.", 1) == "How do I change it?\n\nEdit the line."
    assert embedding_text(path, "Edit the line.", 2) == (
        "Ports > How do I change it?\n\nEdit the line."
    )
    # no heading below the title, or none asked for: the text alone, at its old address
    assert within(["Daemon FAQ"], ["Daemon FAQ"]) == ()
    assert embedding_text((), "Edit the line.", 1) == "Edit the line."
    assert embedding_text(path, "Edit the line.") == "Edit the line."  # the default: off
    assert embedding_key("passage", path, "x", 0) == embedding_key("passage", (), "x", 2)
    assert embedding_key("passage", path, "x", 1) != embedding_key("passage", path[:2], "x", 1)
    assert embedding_key("section", path, "x", 1) != embedding_key("passage", path, "x", 1)


def test_the_question_in_a_heading_finds_the_answer_below_it(tmp_path: Path) -> None:
    doc = tmp_path / "faq.md"
    doc.write_text(FAQ, encoding="utf-8")
    index = Index(Settings(store=tmp_path / "store", embed_headings=1))
    assert index.ingest_paths([doc]).ok
    retriever = Retriever(index)
    for question, heading in (
        ("Which port does the daemon listen on, and how do I change it?", "port"),
        ("How do I stop the log files from growing forever?", "log files"),
    ):
        request = retriever.request(question, k=2, kinds=["passage"])
        top = retriever.query(request).results[0]
        assert heading in top.heading_path[-1], (question, top.heading_path)


def test_reembedding_encodes_what_the_ingest_encoded(tmp_path: Path) -> None:
    doc = tmp_path / "faq.md"
    doc.write_text(FAQ, encoding="utf-8")
    recorder = RecordingEmbedder()
    settings = Settings(store=tmp_path / "store", embedder="hashing", embed_headings=1)
    index = Index(settings, embedder=recorder)
    assert index.ingest_paths([doc]).ok
    at_ingest = set(recorder.texts)
    assert any(t.startswith("How do I change the port") for t in at_ingest)
    assert not any(t.startswith("Daemon FAQ") for t in at_ingest)
    (build,) = index.catalog.current_builds().values()
    sources = index.catalog.nodes.vector_sources_of_build(build, settings.embed_headings)
    again = RecordingEmbedder()
    vectors: VectorStore = _Discard()  # type: ignore[assignment]
    encode_into(vectors, again, sources)
    assert set(again.texts) == at_ingest
