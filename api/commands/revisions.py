"""``overstory revisions DOC`` and ``overstory prune``: a document's history and its retention."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import click

from api.commands.common import (
    emit_json,
    existing_store,
    handle_errors,
    json_option,
    store_option,
)
from indexer.doc_ids import normalize_doc_id
from indexer.index import Index
from indexer.revisions import list_revisions


@click.command()
@click.argument("doc_id")
@store_option
@json_option
@handle_errors
def revisions(doc_id: str, store: Path | None, as_json: bool) -> None:
    """The kept revisions of a document, oldest first, with what changed in each."""
    index = Index(existing_store(store))
    found = list_revisions(index.catalog, normalize_doc_id(doc_id))
    if as_json:
        emit_json({"doc_id": doc_id, "revisions": [r.to_json() for r in found]})
        return
    for r in found:
        when = datetime.fromtimestamp(r.ingested_at, UTC).isoformat() if r.ingested_at else "?"
        mark = "*" if r.served else " "
        pin = f"  pinned: {r.pinned}" if r.pinned else ""
        click.echo(
            f"{mark} {r.revision[:12]}  {when}  {r.sections} sections, {r.passages} passages,"
            f" {r.summaries} summaries{pin}"
        )
        click.echo(f"    {r.changes}")


@click.command()
@click.option("--dry-run", is_flag=True, help="Say what would be dropped; change nothing.")
@store_option
@json_option
@handle_errors
def prune(dry_run: bool, store: Path | None, as_json: bool) -> None:
    """Drop the revisions beyond the last keep_revisions of each document (those pinned by an
    open review or a correction stay) and give the space back."""
    index = Index(existing_store(store))
    report = index.prune(dry_run=dry_run)
    if as_json:
        emit_json(report.to_json())
        return
    verb = "would drop" if dry_run else "dropped"
    click.echo(f"{verb} {len(report.dropped)} revisions (keeping {report.keep_revisions} each)")
    for d in report.dropped:
        click.echo(f"  {d.doc_id} {d.revision[:12]} ({d.status})")
    for k in report.pinned:
        click.echo(f"  kept {k.doc_id} {k.revision[:12]}: {k.reason}")
    if not dry_run:
        reclaimed = max(0, report.bytes_before - report.bytes_after)
        click.echo(
            f"store: {report.bytes_before:,} → {report.bytes_after:,} bytes"
            f" ({reclaimed:,} reclaimed)"
        )
