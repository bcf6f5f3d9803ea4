"""``overstory doctor``: check that SQLite and the vector store agree."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from api.commands.common import (
    emit_json,
    existing_store,
    handle_errors,
    json_option,
    store_option,
)
from indexer.index import Index


@click.command()
@click.option("--repair", is_flag=True, help="Delete orphan vectors and re-embed missing ones.")
@store_option
@json_option
@handle_errors
def doctor(repair: bool, store: Path | None, as_json: bool) -> None:
    """Check the index: every served node has its vector and no vector is orphaned."""
    result = Index(existing_store(store)).check(repair=repair)
    if as_json:
        emit_json(result)
    else:
        state = "consistent" if result["consistent"] else "INCONSISTENT"
        click.echo(
            f"{state}: {result['vectors_expected']} vectors expected, "
            f"{result['vectors_stored']} stored, {result['n_missing']} missing, "
            f"{result['n_orphans']} orphaned"
        )
        if result["rebuilt_from"]:
            click.echo(f"the damaged vector store was rebuilt from SQLite (kept at "
                       f"{result['rebuilt_from']})")  # fmt: skip
        if result["swept"] or result["restored"]:
            click.echo(f"swept {result['swept']} leftovers of unpublished builds, put back "
                       f"{result['restored']} vectors from SQLite")  # fmt: skip
        if result["kept_for_retry"]:
            click.echo(f"kept {result['kept_for_retry']} vectors of an interrupted build for its "
                       "retry")  # fmt: skip
        if set(result["stored_encoders"]) - {result["encoder"]}:
            click.echo(f"vectors of another encoder: {result['stored_encoders']}; run "
                       "`overstory reembed`")  # fmt: skip
    if not result["consistent"] and not repair:
        sys.exit(1)
