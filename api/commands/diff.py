"""``overstory diff DOC``: what changed between two revisions of a document."""

from __future__ import annotations

from pathlib import Path

import click

from api.commands.common import (
    emit_json,
    existing_store,
    handle_errors,
    json_option,
    store_option,
)
from indexer.diff import diff_revisions
from indexer.index import Index


@click.command()
@click.argument("doc_id")
@click.option("--from", "from_rev", default=None, help="Older revision (hash or prefix).")
@click.option("--to", "to_rev", default=None, help="Newer revision (hash or prefix).")
@store_option
@json_option
@handle_errors
def diff(
    doc_id: str, from_rev: str | None, to_rev: str | None, store: Path | None, as_json: bool
) -> None:
    """Sections added, removed, moved and changed between two revisions (default: the last two)."""
    index = Index(existing_store(store))
    result = diff_revisions(index.catalog, doc_id, from_revision=from_rev, to_revision=to_rev)
    if as_json:
        emit_json(result.to_json())
        return
    click.echo(f"{doc_id}: {result.from_revision[:12]} → {result.to_revision[:12]}")
    for change in result.changes:
        where = " › ".join(change.heading_path)
        if change.change == "moved":
            where = f"{' › '.join(change.old_heading_path or [])} → {where}"
        click.echo(f"  {change.change:8} {where}")
        if change.change == "changed" and change.diff:
            for line in change.diff.splitlines()[2:]:
                click.echo(f"      {line}")
