"""The indexer's front door: one object per store, used by the CLI and the HTTP service.

``Index(settings)`` opens a store folder (the SQLite catalog, the vector store, the models that
fill them) and offers what the indexer does: ingest files or uploads, plan an ingest without
doing it, list, show and delete documents, and check the vector store against the catalog.
Publish hooks, given to the constructor, run after documents got a new served revision (or
were deleted): the edge (``api.service.wiring``) wires the lexical index and the lint warm-up.
"""

from __future__ import annotations

import fcntl
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexer.doc_ids import normalize_doc_id
from indexer.embedding import Embedder, encoder_identity, make_embedder
from indexer.encoders import Reembedded, encode_into, reembed, require_encoder
from indexer.errors import OverstoryError
from indexer.hashing import hash_bytes
from indexer.ingest import IngestContext, Restructure, ingest_document, ingest_source
from indexer.lint import Linter
from indexer.listing import served_documents
from indexer.progress import ProgressEvent, ProgressFn, no_progress
from indexer.reports import IngestReport
from indexer.retention import PruneReport, plan_prune, prune
from indexer.revisions import change_lines
from indexer.settings import Settings
from indexer.store.catalog import Catalog
from indexer.store.location import open_catalog
from indexer.store.vectors import VectorStore
from indexer.store.vectors.recorded import RecordedVectorStore
from indexer.summarizers import Summarizer, make_summarizer
from indexer.supersession import newer_publish, record_publish
from indexer.timings import StageTimes
from indexer.treeview import tree_json
from indexer.vector_health import Opened, open_vectors, restore

if TYPE_CHECKING:
    from indexer.plan import IngestPlan
    from indexer.sources import PendingSource

PublishHook = Callable[[Sequence[str]], None]
"""Called with the doc_ids whose served revision changed (new build or deleted), once per call
of :meth:`Index.ingest_paths`, :meth:`Index.ingest_bytes` or :meth:`Index.delete`."""


class Index:
    """A store folder: the SQLite catalog, the vector store and the models that fill them."""

    def __init__(
        self,
        settings: Settings,
        *,
        catalog: Catalog | None = None,
        embedder: Embedder | None = None,
        summarizer: Summarizer | None = None,
        vectors: VectorStore | None = None,
        linter: Linter | None = None,
        on_publish: Sequence[PublishHook] = (),
    ) -> None:
        self.settings = settings
        settings.store.mkdir(parents=True, exist_ok=True)
        self.catalog = catalog if catalog is not None else open_catalog(settings)
        self._vectors = (
            vectors
            if vectors is None or isinstance(vectors, RecordedVectorStore)
            else RecordedVectorStore(vectors, self.catalog.vector_copies)
        )
        self.vector_repair: Opened | None = None
        self._thread_lock = threading.RLock()
        self._lock_held = False
        self._embedder = embedder
        self._linter = linter
        self._summarizer = summarizer
        self._on_publish = tuple(on_publish)

    def _published(self, doc_ids: Sequence[str]) -> None:
        if doc_ids:
            for hook in self._on_publish:
                hook(list(doc_ids))

    @property
    def vectors(self) -> VectorStore:
        """The vector store, opened on first use; rebuilt from SQLite if a crash damaged it
        (``indexer.vector_health``; what was done is in :attr:`vector_repair`)."""
        if self._vectors is None:
            opened = open_vectors(self.settings, self.catalog, self._ingest_lock)
            self._vectors = opened.store
            self.vector_repair = opened
            if opened.missing:
                with self._ingest_lock():
                    self._reembed(set(opened.missing))
        return self._vectors

    @property
    def embedder(self) -> Embedder:
        """The embedder, loaded on first use (torch import is slow)."""
        if self._embedder is None:
            self._embedder = make_embedder(self.settings)
        return self._embedder

    @property
    def linter(self) -> Linter:
        """The summary lint as configured (its sentence vectors load on first use)."""
        if self._linter is None:
            embedder = self.embedder if self.settings.lint_alignment == "encoder" else None
            self._linter = Linter.from_settings(self.settings, embedder=embedder)
        return self._linter

    @property
    def encoder_name(self) -> str:
        """The identity of the configured encoder's vectors (without loading the model)."""
        return (
            self._embedder.name if self._embedder is not None else encoder_identity(self.settings)
        )

    def require_encoder(self) -> None:
        """Refuse a store whose served vectors another encoder made (see ``indexer.encoders``)."""
        require_encoder(self.catalog, self.encoder_name)

    def reembed(self, progress: ProgressFn = no_progress) -> Reembedded:
        """Encode again every served build another encoder made, with the configured one."""
        with self._ingest_lock():
            headings = self.settings.embed_headings
            return reembed(self.catalog, self.vectors, self.embedder, progress, headings=headings)

    @property
    def summarizer(self) -> Summarizer:
        """The configured summarizer."""
        if self._summarizer is None:
            self._summarizer = make_summarizer(self.settings)
        return self._summarizer

    def restructure_hook(self) -> Restructure | None:
        """How headingless or flat parts of a tree get levels (clustering; None when off)."""
        from indexer.clustering import make_restructure  # scipy and scikit-learn: ingest only

        return make_restructure(self.settings, catalog=self.catalog)

    @contextmanager
    def _ingest_lock(self) -> Iterator[None]:
        # One writer per store across processes (CLI and service may share a store). Taken
        # again by the thread holding it (opening the vector store inside a check), it is a
        # no-op: a second flock of the same file would wait for ourselves.
        with self._thread_lock:
            if self._lock_held:
                yield
                return
            with open(self.settings.store / "ingest.lock", "w") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX)
                self._lock_held = True
                try:
                    yield
                finally:
                    self._lock_held = False
                    fcntl.flock(fh, fcntl.LOCK_UN)

    def _context(self, progress: ProgressFn, times: StageTimes | None = None) -> IngestContext:
        return IngestContext(
            settings=self.settings,
            catalog=self.catalog,
            vectors=self.vectors,
            embedder=self.embedder,
            summarizer=self.summarizer,
            progress=progress,
            restructure=self.restructure_hook(),
            times=times or StageTimes(),
        )

    def ingest_bytes(
        self,
        data: bytes,
        *,
        doc_id: str,
        source: str | None = None,
        filename: str | None = None,
        progress: ProgressFn = no_progress,
        as_of: float | None = None,
        job_id: str = "",
    ) -> IngestReport:
        """Ingest one document given as bytes (an HTTP upload).

        Args:
            as_of: When the content was submitted (a job's upload time). Given, the ingest is
                refused if a revision submitted later (or a deletion) was published since.
            job_id: The job ingesting, named in a refusal.

        Raises:
            InvalidRequestError: ``doc_id`` is not a valid doc_id (``indexer.doc_ids``).
            JobSupersededError: A newer revision is served (only with ``as_of``).
        """
        doc_id = normalize_doc_id(doc_id)
        report = IngestReport()
        started = time.perf_counter()
        submitted = time.time() if as_of is None else as_of
        with self._ingest_lock():
            self.require_encoder()
            if as_of is not None:
                # Checked under the lock: a newer publish may have happened while this waited.
                error = newer_publish(
                    self.catalog, doc_id, as_of=as_of, revision=hash_bytes(data), job_id=job_id
                )
                if error is not None:
                    raise error
            times = StageTimes()
            doc = ingest_document(
                self._context(progress, times),
                data,
                doc_id=doc_id,
                source=source or doc_id,
                filename=filename or doc_id,
            )
            if doc.status != "unchanged":
                record_publish(self.catalog, doc_id, as_of=submitted)
                with times.timed("prune"):
                    report.pruned = self._prune_quietly([doc_id])
        with times.timed("publish"):
            self._published([doc_id] if doc.status != "unchanged" else [])
        report.add(doc)
        report.seconds = time.perf_counter() - started
        report.stages = times.to_json(report.seconds)
        return report

    def ingest_paths(
        self,
        paths: list[Path],
        *,
        progress: ProgressFn = no_progress,
        manual: bool = False,
        doc_id: str | None = None,
        sync: bool = False,
    ) -> IngestReport:
        """Ingest files and folders; a failing file is reported and the others still ingested.

        Args:
            manual: All the paths are one manual (see :func:`indexer.sources.path_sources`),
                named ``doc_id`` (default: the first path's name).
            sync: Afterwards delete every served document these paths no longer hold (the
                store then mirrors them); the deleted ones are listed in ``report.removed``.

        Raises:
            EncoderMismatchError: The store's vectors are another encoder's.
        """
        from indexer.sources import path_sources  # the parsers: ingest only

        report = IngestReport()
        started = time.perf_counter()
        times = StageTimes()
        with times.timed("open"):
            self.require_encoder()
            ctx = self._context(progress, times)
        published: list[str] = []
        seen: set[str] = set()
        items = list(
            path_sources(paths, self.settings, manual=manual, doc_id=doc_id, skipped=report.skipped)
        )
        if len(items) > 1:
            progress(ProgressEvent(items[0].doc_id, "files", 0, len(items)))
        try:
            for done, item in enumerate(items, 1):
                seen.add(item.doc_id)
                self._ingest_item(ctx, item, report, published)
                if len(items) > 1:
                    progress(ProgressEvent(item.doc_id, "files", done, len(items)))
            if sync:
                report.removed = self._remove_unseen(seen)
                published.extend(report.removed)
        finally:
            with times.timed("publish"):
                self._published(published)
        report.seconds = time.perf_counter() - started
        report.stages = times.to_json(report.seconds)
        return report

    def _ingest_item(
        self, ctx: IngestContext, item: PendingSource, report: IngestReport, published: list[str]
    ) -> None:
        """One file of :meth:`ingest_paths`: its failure is reported, not raised."""
        from indexer.sources import file_error

        try:
            submitted = time.time()
            with ctx.times.timed("read"):
                src = item.load()
            with self._ingest_lock():
                doc = ingest_source(ctx, src)
                if doc.status != "unchanged":
                    record_publish(self.catalog, item.doc_id, as_of=submitted)
                    with ctx.times.timed("prune"):
                        report.pruned += self._prune_quietly([item.doc_id])
            if doc.status != "unchanged":
                published.append(item.doc_id)
            report.add(doc)
        except (OverstoryError, OSError) as exc:
            report.errors.append(file_error(item.doc_id, item.path, exc))

    def _remove_unseen(self, seen: set[str]) -> list[str]:
        gone = sorted(r["doc_id"] for r in self.catalog.documents() if r["doc_id"] not in seen)
        for doc_id in gone:
            self._delete(doc_id)
        return gone

    def plan_paths(
        self,
        paths: list[Path],
        *,
        manual: bool = False,
        doc_id: str | None = None,
        progress: ProgressFn = no_progress,
    ) -> IngestPlan:
        """What ``ingest_paths`` would do, per document: summaries computed and reused, and the
        token estimate; calls no model, embeds and writes nothing (``ingest --dry-run``)."""
        from indexer.plan import IngestPlan, plan_source  # clustering estimates: dry runs only
        from indexer.sources import file_error, path_sources

        started = time.perf_counter()
        ctx = self._context(no_progress)
        plan = IngestPlan(identity=ctx.summarizer.identity)
        for item in path_sources(
            paths, self.settings, manual=manual, doc_id=doc_id, skipped=plan.skipped
        ):
            try:
                progress(ProgressEvent(item.doc_id, "plan", 0, 1))
                plan.documents.append(plan_source(ctx, item.load()))
                progress(ProgressEvent(item.doc_id, "plan", 1, 1))
            except (OverstoryError, OSError) as exc:
                plan.errors.append(file_error(item.doc_id, item.path, exc))
        plan.seconds = time.perf_counter() - started
        return plan

    def prune(self, *, dry_run: bool = False, vacuum: bool = True) -> PruneReport:
        """Drop the revisions the retention rule no longer keeps (setting ``keep_revisions``),
        from every document; ``vacuum`` gives the space back to the file system."""
        with self._ingest_lock():
            plan = plan_prune(self.catalog, keep=self.settings.keep_revisions)
            return prune(
                self.catalog,
                self.vectors,
                plan,
                store=self.settings.store,
                dry_run=dry_run,
                vacuum=vacuum,
            )

    def _prune_quietly(self, doc_ids: list[str]) -> list[dict[str, Any]]:
        """After a publish (under the ingest lock): the new revision's one-line change is
        recorded while its predecessor is there, then retention runs on these documents; what
        it dropped is returned. Freed pages are reused; ``overstory prune`` also vacuums."""
        for doc_id in doc_ids:
            change_lines(self.catalog, self.catalog.revisions(doc_id))
        plan = plan_prune(self.catalog, keep=self.settings.keep_revisions, doc_ids=doc_ids)
        if not plan.dropped:
            return []
        done = prune(self.catalog, self.vectors, plan, store=self.settings.store)
        return [{"doc_id": d.doc_id, "revision": d.revision} for d in done.dropped]

    def delete(self, doc_id: str) -> None:
        """Remove a document and its vectors."""
        doc_id = normalize_doc_id(doc_id)
        self.catalog.require_document(doc_id)
        self._delete(doc_id)
        self._published([doc_id])

    def _delete(self, doc_id: str) -> None:
        submitted = time.time()
        with self._ingest_lock():
            self.catalog.delete_document(doc_id)
            record_publish(self.catalog, doc_id, as_of=submitted)
            stale = sorted(self.vectors.ids_of_document(doc_id))
            if stale:
                self.vectors.delete(stale)

    def documents(self) -> list[dict[str, Any]]:
        """The served documents with their revision and counts."""
        return served_documents(self.catalog)

    def tree(self, doc_id: str) -> dict[str, Any]:
        """The served tree of a document as nested JSON (see ``overstory tree --json``)."""
        row = self.catalog.require_document(normalize_doc_id(doc_id))
        return tree_json(self.catalog, int(row["current_build"]))

    def check(self, *, repair: bool = False) -> dict[str, Any]:
        """Compare SQLite and the vector store; optionally delete orphans and re-embed gaps.

        Waits for a running ingest (of any process) to finish: mid-build, vectors of the
        unpublished build are stored but not yet referenced, and a repair would delete them.
        """
        with self._ingest_lock():
            if repair:
                self.require_encoder()  # re-embedding gaps with another encoder would mix
            return self._check(repair=repair)

    def _check(self, *, repair: bool) -> dict[str, Any]:
        # Safe without --repair (no build is being written while we hold the lock): leftovers
        # of builds that never got published go, and vectors SQLite holds are put back.
        swept = self.catalog.vector_copies.unreferenced()
        if swept:
            self.vectors.delete(swept)
        expected = self.catalog.served_vector_ids()
        stored = self.vectors.all_ids()
        restored = self._restore(expected - stored)
        stored |= restored
        kept = set(self.catalog.vector_copies.kept_for_retry())  # an interrupted build's
        missing = sorted(expected - stored)
        orphans = sorted(stored - expected - kept)
        repaired = {"deleted": 0, "embedded": 0}
        if repair:
            if orphans:
                self.vectors.delete(orphans)
                repaired["deleted"] = len(orphans)
            if missing:
                repaired["embedded"] = self._reembed(set(missing))
        encoders = self.catalog.served_encoders()
        return {
            "consistent": not missing and not orphans and set(encoders) <= {self.encoder_name},
            "encoder": self.encoder_name,
            "stored_encoders": {name: len(docs) for name, docs in sorted(encoders.items())},
            "vectors_expected": len(expected),
            "vectors_stored": len(stored),
            "missing": missing[:20],
            "orphans": orphans[:20],
            "n_missing": len(missing),
            "n_orphans": len(orphans),
            "swept": len(swept),
            "kept_for_retry": len(kept & stored),
            "restored": len(restored),
            "rebuilt_from": str(self.vector_repair.rebuilt_from)
            if self.vector_repair and self.vector_repair.rebuilt_from
            else None,
            "repaired": repaired if repair else None,
        }

    def _restore(self, wanted: set[str]) -> set[str]:
        """Put back, from SQLite's copies, vectors the vector store lacks (nothing encoded)."""
        if not wanted or not isinstance(self.vectors, RecordedVectorStore):
            return set()
        return restore(self.vectors.inner, self.catalog, wanted)

    def _reembed(self, wanted: set[str]) -> int:
        sources = self.catalog.nodes.served_vector_sources(wanted, self.settings.embed_headings)
        return encode_into(self.vectors, self.embedder, sources)

    def close(self) -> None:
        """Release the catalog connection of this thread."""
        self.catalog.close()
