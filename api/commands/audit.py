"""``overstory audit``: the audit queue (default), ``audit review NODE``, ``audit log``."""

from __future__ import annotations

import getpass
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from api.commands.common import (
    emit_json,
    existing_store,
    handle_errors,
    json_option,
    store_option,
)
from api.service.audit import QUEUE_STATUSES, ReviewCreate, audit_log, queue, record_review
from api.service.audit_models import QueueItemPublic
from indexer.errors import InvalidRequestError
from indexer.index import Index
from indexer.store.catalog import Catalog
from indexer.validation import validated

F = TypeVar("F", bound=Callable[..., Any])


def _catalog(store: Path | None) -> Catalog:
    return Index(existing_store(store)).catalog


def _index(store: Path | None) -> Index:
    return Index(existing_store(store))


def _queue_options(fn: F) -> F:
    for option in reversed(
        [
            click.option("--doc", "docs", multiple=True, help="Only this document (repeatable)."),
            click.option(
                "--status",
                type=click.Choice(QUEUE_STATUSES),
                default="pending",
                show_default=True,
                help="Which summaries to list.",
            ),
            click.option("--limit", type=click.IntRange(1, 500), default=20, show_default=True),
            click.option("--offset", type=click.IntRange(0), default=0, show_default=True),
            click.option(
                "--all-flags",
                is_flag=True,
                help="Also show the flags below the setting lint_min_confidence.",
            ),
            store_option,
            json_option,
        ]
    ):
        fn = option(fn)
    return fn


@click.group(invoke_without_command=True)
@_queue_options
@click.pass_context
def audit(ctx: click.Context, **options: Any) -> None:
    """Audit summaries: list the queue (the default), review a node, show the log.

    The queue lists stale reviews first (the source changed), then summaries with the most
    serious lint flags, top levels first.
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(queue_command, **options)


@audit.command("queue")
@_queue_options
@handle_errors
def queue_command(
    docs: tuple[str, ...],
    status: str,
    limit: int,
    offset: int,
    all_flags: bool,
    store: Path | None,
    as_json: bool,
) -> None:
    """List the summaries to audit, most urgent first."""
    index = _index(store)
    result = queue(
        index.catalog,
        doc_ids=list(docs) or None,
        status=status,
        limit=limit,
        offset=offset,
        linter=index.linter,
        min_confidence=0.0 if all_flags else index.settings.lint_min_confidence,
    )
    if as_json:
        emit_json(result)
        return
    counts = result.counts
    click.echo(
        f"{result.total} {status} of {sum(counts[s] for s in QUEUE_STATUSES[:4])} summaries "
        f"({counts['pending']} pending, {counts['stale']} stale, {counts['approved']} approved, "
        f"{counts['corrected']} corrected, {counts['rejected']} rejected)"
    )
    for item in result.items:
        _print_item(item)


def _print_item(item: QueueItemPublic) -> None:
    node = item.node
    pages = node.pages
    where = f"  pp. {pages[0]}–{pages[1]}" if pages and pages[0] is not None else ""
    path = " › ".join(node.heading_path) or "(untitled)"
    mark = "[stale] " if item.stale else ""
    click.echo(f"\n{mark}{node.level}  {node.doc_id}: {path}{where}  ({item.status})")
    kinds = Counter(f.kind for f in item.flags)
    flags = ", ".join(f"{n} {k}" for k, n in kinds.items()) or "none"
    click.echo(f"  node {node.node_id}  flags: {flags}")
    if item.reason:
        click.echo(f"  {item.reason}")
    text = " ".join((node.summary or "").split())
    click.echo(f"  summary — not a quote: {text[:300]}{'…' if len(text) > 300 else ''}")


@audit.command("review")
@click.argument("node_id")
@click.option("--approve", "verdict", flag_value="approved", help="The summary is right.")
@click.option("--reject", "verdict", flag_value="rejected", help="The summary is wrong.")
@click.option("--correct", "text", metavar="TEXT", help="Replace the summary ('-': stdin).")
@click.option("--note", help="A remark for the log and the next reviewer.")
@click.option("--reviewer", default=None, help="Who reviews (default: the user name).")
@store_option
@json_option
@handle_errors
def review_command(
    node_id: str,
    verdict: str | None,
    text: str | None,
    note: str | None,
    reviewer: str | None,
    store: Path | None,
    as_json: bool,
) -> None:
    """Approve, correct or reject the summary of NODE_ID (a node of a served revision)."""
    if (verdict is None) == (text is None):
        raise InvalidRequestError("give exactly one of --approve, --correct TEXT or --reject")
    if text == "-":
        text = sys.stdin.read()
    request = validated(
        ReviewCreate, {"status": verdict or "corrected", "text": text, "note": note}
    )
    index = _index(store)
    result = record_review(
        index.catalog,
        node_id,
        request,
        reviewer=reviewer or getpass.getuser(),
        linter=index.linter,
    )
    if as_json:
        emit_json(result)
        return
    stored = result.review
    click.echo(f"review {stored.review_id}: {stored.status} by {stored.reviewer}")
    for flag in result.flags:
        click.echo(f"  flag {flag.kind}: {flag.message}")
    if not result.flags:
        click.echo("  no lint flags")


@audit.command("log")
@click.option("--doc", default=None, help="Only this document.")
@click.option("--limit", type=click.IntRange(1, 500), default=50, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@store_option
@json_option
@handle_errors
def log_command(
    doc: str | None, limit: int, offset: int, store: Path | None, as_json: bool
) -> None:
    """Show the audit log, newest first."""
    result = audit_log(_catalog(store), doc_id=doc, limit=limit, offset=offset)
    if as_json:
        emit_json(result)
        return
    for e in result.entries:
        note = f"  note: {e.detail.get('note')}" if e.detail.get("note") else ""
        heading_path = e.detail.get("heading_path")
        path = " › ".join(str(h) for h in heading_path) if isinstance(heading_path, list) else ""
        click.echo(f"#{e.entry_id}  {e.action}  by {e.actor}  {e.doc_id}: {path}{note}")
