"""The lint judge's flags: computed in the background after a publish, cached, merged on read.

Answers are stored in the lint cache under ``judge:<summary key>`` with the same inputs hash as
the rules' flags (the children's corrections), so a summary is judged once per text it is
checked against. Reading never calls the model: a summary not judged yet simply has no judge
flags. :class:`JudgeWarmup` is a publish hook that starts one background thread per publish and
returns at once, so an ingest never waits for the model.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from api.service.audit_nodes import load_nodes
from api.service.lint_cache import judge_inputs, judge_key, judged_flags, node_sources
from indexer.lint import flags_json
from indexer.lint.judge import Judge
from indexer.store.catalog import Catalog
from indexer.store.lint_flags import CachedFlags

log = logging.getLogger("overstory.audit")


def judge_document(catalog: Catalog, doc_id: str, judge: Judge) -> int:
    """Judge a served document's summaries not judged yet; return how many were judged."""
    build_id = catalog.current_build(doc_id)
    if build_id is None:
        return 0
    rows = [r for r in catalog.nodes.inner_of_build(build_id) if r["summary_key"]]
    nodes = load_nodes(catalog, rows, with_children=True)
    done = judged_flags(catalog, rows, nodes)
    todo = [r for r in rows if r["node_id"] not in done and r["summary_key"] in nodes.summaries]
    items = [(str(nodes.summaries[r["summary_key"]]["text"]), node_sources(catalog, r, nodes))
             for r in todo]  # fmt: skip
    answers = judge.judge_many(items)
    entries = [
        CachedFlags(
            summary_key=judge_key(r["summary_key"]),
            inputs=judge_inputs(r, nodes),
            flags=flags_json(flags),
        )  # fmt: skip
        for r, flags in zip(todo, answers, strict=True)
        if flags is not None  # a failed call is retried after the next publish
    ]
    catalog.lint.put(entries)
    return len(entries)


class JudgeWarmup:
    """A publish hook: judge the published documents' summaries in a background thread."""

    def __init__(self, catalog: Catalog, judge: Judge) -> None:
        self.catalog = catalog
        self.judge = judge
        self._threads: list[threading.Thread] = []

    def __call__(self, doc_ids: Sequence[str]) -> None:
        thread = threading.Thread(
            target=self._run, args=(list(doc_ids),), name="lint-judge", daemon=True
        )
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

    def _run(self, doc_ids: list[str]) -> None:
        for doc_id in doc_ids:
            try:
                judge_document(self.catalog, doc_id, self.judge)
            except Exception:
                log.warning("the lint judge failed on %s", doc_id, exc_info=True)

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the background judging started so far (tests, a clean shutdown)."""
        for thread in list(self._threads):
            thread.join(timeout)
