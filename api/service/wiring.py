"""The index and the retriever of one store, built the same way for the CLI and the service.

The publish hooks are wired here, once: after documents get a new served revision, the lexical
index and the snapshot queries see are brought up to it (:mod:`retriever.follower`), and their
summaries are linted (the audit queue's order).
"""

from __future__ import annotations

from dataclasses import dataclass

from api.service.judge_cache import JudgeWarmup
from api.service.lint_cache import LintWarmup
from indexer.embedding import Embedder
from indexer.index import Index, PublishHook, open_catalog
from indexer.lint import Linter
from indexer.lint.judge import make_judge
from indexer.settings import Settings
from indexer.summarizers import Summarizer
from retriever import Retriever
from retriever.follower import PublishFollower
from retriever.lexical import LexicalIndex


@dataclass(frozen=True)
class Stack:
    """An open store: the index (writes) and the retriever (reads) over it."""

    index: Index
    retriever: Retriever


def open_stack(
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    summarizer: Summarizer | None = None,
    queries: bool = True,
) -> Stack:
    """The index and retriever of the store named by ``settings``, with the publish hooks.

    Args:
        settings: The settings (store, backends, limits).
        embedder: An already loaded embedder for ingest (default: from the settings).
        summarizer: A summarizer (default: from the settings).
        queries: False for a process that only ingests (``overstory worker``): its publishes
            do not refresh a BM25 index of its own (the replicas refresh theirs).
    """
    catalog = open_catalog(settings)
    lexical = LexicalIndex(settings.store / "lexical", catalog)
    linter = Linter.from_settings(settings, embedder=embedder)
    follower = PublishFollower(catalog, lexical, interval=settings.publish_poll_seconds)
    hooks: list[PublishHook] = [LintWarmup(catalog, linter)]
    if queries:
        hooks.insert(0, follower.on_publish)
    judge = make_judge(settings)
    if judge is not None:
        hooks.append(JudgeWarmup(catalog, judge))
    index = Index(
        settings,
        catalog=catalog,
        embedder=embedder,
        summarizer=summarizer,
        linter=linter,
        on_publish=hooks,
    )
    retriever = Retriever(index, lexical=lexical, follower=follower)
    return Stack(index=index, retriever=retriever)
