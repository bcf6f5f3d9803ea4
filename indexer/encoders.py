"""Vectors of one encoder only: the check that a store matches the configured encoder, and
``reembed``, which makes it match.

Every build records the encoder of its vectors. Query vectors of one model compared with stored
vectors of another rank nonsense, and an ingest would reuse stored vectors by content, so a
store whose served builds were encoded otherwise than configured is refused (reads and writes
alike) with what to do. ``reembed`` encodes the vectors of those builds again from the texts the
catalog holds, build by build, and records the new encoder on each as it finishes: interrupted,
it resumes where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from indexer.embedding import Embedder
from indexer.errors import EncoderMismatchError
from indexer.progress import ProgressEvent, ProgressFn, no_progress
from indexer.store.catalog import Catalog
from indexer.store.records import VectorSource
from indexer.store.vectors import VectorStore

BATCH = 256


def require_encoder(catalog: Catalog, encoder: str) -> None:
    """Refuse a store whose served vectors another encoder made.

    Raises:
        EncoderMismatchError: Naming the store's encoders, the configured one and the remedy.
    """
    others = {name: docs for name, docs in catalog.served_encoders().items() if name != encoder}
    if not others:
        return
    found = "; ".join(
        f"{name} ({len(docs)} document{'s' if len(docs) != 1 else ''}, e.g. {docs[0]})"
        for name, docs in sorted(others.items())
    )
    raise EncoderMismatchError(
        f"this store's vectors were made by {found}, but the settings select {encoder}: "
        f"run `overstory reembed` to encode them again with {encoder} (summaries are kept), "
        "or select the store's encoder (settings encoder_runtime / encoder_precision / embedder)"
    )


@dataclass(frozen=True)
class Reembedded:
    """What ``reembed`` did."""

    encoder: str
    documents: int
    vectors: int


def reembed(
    catalog: Catalog,
    vectors: VectorStore,
    embedder: Embedder,
    progress: ProgressFn = no_progress,
    *,
    headings: int = 0,
) -> Reembedded:
    """Encode again, with ``embedder``, every served build another encoder made (the caller
    holds the store's ingest lock); each text under its last ``headings`` headings."""
    todo = catalog.served_builds_not_encoded_by(embedder.name)
    done = 0
    for doc_id, build_id in todo:
        sources = catalog.nodes.vector_sources_of_build(build_id, headings)
        total = len(sources)
        progress(ProgressEvent(doc_id, "embed", 0, total))

        def step(n: int, doc_id: str = doc_id, total: int = total) -> None:
            progress(ProgressEvent(doc_id, "embed", n, total))

        encode_into(vectors, embedder, sources, step)
        catalog.set_build_encoder(build_id, embedder.name)
        done += len(sources)
    return Reembedded(encoder=embedder.name, documents=len(todo), vectors=done)


def encode_into(
    vectors: VectorStore,
    embedder: Embedder,
    sources: Sequence[VectorSource],
    done: Callable[[int], None] = lambda _: None,
) -> int:
    """Encode ``sources`` in batches and store their vectors; ``done`` hears the count so far."""
    for i in range(0, len(sources), BATCH):
        batch = sources[i : i + BATCH]
        vectors.upsert(
            [s.vector_id for s in batch],
            embedder.embed([s.text for s in batch]),
            doc_ids=[s.doc_id for s in batch],
            kinds=[s.kind for s in batch],
        )
        done(i + len(batch))
    return len(sources)
