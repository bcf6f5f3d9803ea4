"""The ``overstory`` command: thin wrappers over the indexer and retriever libraries.

Commands are imported when they run (:class:`api.commands.lazy.LazyGroup`): ``overstory
--version`` and ``overstory docs`` start without loading models, clustering or the HTTP
service. A new command is a function importing it and an entry in :data:`COMMANDS` with its
one-line help (``tests/test_cli_lazy.py`` checks that help against the command's own).
"""

from __future__ import annotations

import click

from api.commands.lazy import LazyCommand, LazyGroup


def _audit() -> click.Command:
    from api.commands.audit import audit

    return audit


def _context() -> click.Command:
    from api.commands.context import context

    return context


def _diff() -> click.Command:
    from api.commands.diff import diff

    return diff


def _docs() -> click.Command:
    from api.commands.documents import docs

    return docs


def _doctor() -> click.Command:
    from api.commands.doctor import doctor

    return doctor


def _eval() -> click.Command:
    from api.commands.query import evaluate

    return evaluate


def _export_onnx() -> click.Command:
    from api.commands.encoder import export_onnx

    return export_onnx


def _ingest() -> click.Command:
    from api.commands.ingest import ingest

    return ingest


def _keys() -> click.Command:
    from api.commands.keys import keys

    return keys


def _mcp() -> click.Command:
    from api.commands.mcp import mcp_command

    return mcp_command


def _migrate() -> click.Command:
    from api.commands.migrate import migrate

    return migrate


def _prune() -> click.Command:
    from api.commands.revisions import prune

    return prune


def _query() -> click.Command:
    from api.commands.query import query

    return query


def _reembed() -> click.Command:
    from api.commands.encoder import reembed

    return reembed


def _revisions() -> click.Command:
    from api.commands.revisions import revisions

    return revisions


def _rm() -> click.Command:
    from api.commands.documents import rm

    return rm


def _select() -> click.Command:
    from api.commands.select import select_command

    return select_command


def _serve() -> click.Command:
    from api.commands.serve import serve

    return serve


def _tree() -> click.Command:
    from api.commands.documents import tree

    return tree


def _worker() -> click.Command:
    from api.commands.worker import worker

    return worker


_C = LazyCommand
COMMANDS: dict[str, LazyCommand] = {
    "audit": _C(
        _audit, "Audit summaries: list the queue (the default), review a node, show the log."
    ),
    "context": _C(
        _context,
        "The best mix of summaries and passages that fits a token budget, in reading order, "
        "each piece labelled and numbered for citation; --json prints what POST /v1/context "
        "answers.",
    ),
    "diff": _C(
        _diff,
        "Sections added, removed, moved and changed between two revisions (default: the last two).",
    ),
    "docs": _C(_docs, "List the indexed documents."),
    "doctor": _C(
        _doctor, "Check the index: every served node has its vector and no vector is orphaned."
    ),
    "eval": _C(
        _eval,
        "Score Overstory, Overstory with passages only, and a flat baseline (passages only, "
        "dense only) on QUESTIONS.jsonl, per question kind and intent, and how well the intent "
        "was read.",
    ),
    "export-onnx": _C(
        _export_onnx,
        "Export the bundled MiniLM to ONNX (done by `make install`; needs torch once).",
    ),
    "ingest": _C(
        _ingest, "Index files and folders; re-ingesting a changed file makes a new revision."
    ),
    "keys": _C(_keys, "Manage API keys (stored hashed; a key is shown once, when created)."),
    "mcp": _C(
        _mcp,
        "Serve the store's search, outline, read_node, what_changed, select, list_documents "
        "and audit_queue to MCP clients (agents, desktop assistants).",
    ),
    "migrate": _C(
        _migrate,
        "Upgrade the catalog's schema to this version's (creates it in an empty database).",
    ),
    "prune": _C(
        _prune,
        "Drop the revisions beyond the last keep_revisions of each document (those pinned by an "
        "open review or a correction stay) and give the space back.",
    ),
    "query": _C(
        _query,
        "Search passages and summaries; every result says what it is and where it comes from.",
    ),
    "reembed": _C(
        _reembed,
        "Encode the store's vectors again with the configured encoder (summaries are kept).",
    ),
    "revisions": _C(
        _revisions, "The kept revisions of a document, oldest first, with what changed in each."
    ),
    "rm": _C(_rm, "Delete a document, all its revisions and its vectors."),
    "select": _C(
        _select, "Pick K clusters of passages that together cover the corpus, without a query."
    ),
    "serve": _C(_serve, "Serve the HTTP API (OpenAPI docs at /docs)."),
    "tree": _C(_tree, "Show a document's tree of headings, clusters, summaries and passages."),
    "worker": _C(
        _worker,
        "Run queued ingestion jobs until SIGTERM (then finish, or give back, the running ones).",
    ),
}


@click.group(cls=LazyGroup, lazy=COMMANDS)
@click.version_option(package_name="overstory")
def main() -> None:
    """Overstory: a hierarchical summary index over long structured documents."""


if __name__ == "__main__":  # pragma: no cover
    main()
