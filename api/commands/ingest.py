"""``overstory ingest PATH…``"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from api.commands.common import emit_json, handle_errors, json_option, settings_from, store_option
from indexer.index import Index
from indexer.progress import ProgressEvent, ProgressFn, no_progress


def _progress_bar() -> tuple[ProgressFn, Any]:
    from tqdm import tqdm

    bar = tqdm(total=0, unit="step", file=sys.stderr, leave=False, dynamic_ncols=True)

    def update(ev: ProgressEvent) -> None:
        bar.set_description(f"{ev.doc_id} {ev.stage}")
        bar.total = ev.total
        bar.n = ev.done
        bar.set_postfix(calls=ev.summarizer_calls, hits=ev.cache_hits, refresh=False)
        bar.refresh()

    return update, bar


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@store_option
@json_option
@handle_errors
def ingest(paths: tuple[Path, ...], store: Path | None, as_json: bool) -> None:
    """Index files and folders; re-ingesting a changed file makes a new revision.

    A folder's files get the path relative to the folder as their doc_id. Exit code 1 when any
    file failed (the others are still ingested).
    """
    index = Index(settings_from(store))
    progress: ProgressFn = no_progress
    bar = None
    if not as_json and sys.stderr.isatty():
        progress, bar = _progress_bar()
    try:
        report = index.ingest_paths(list(paths), progress=progress)
    finally:
        if bar is not None:
            bar.close()
    if as_json:
        emit_json(report.to_json())
    else:
        for d in report.documents:
            click.echo(
                f"{d.status:9} {d.doc_id}  {d.passages} passages, {d.summaries} summaries, "
                f"depth {d.depth}"
            )
        for e in report.errors:
            click.echo(f"failed    {e['doc_id']}: {e['message']}", err=True)
        click.echo(
            f"{report.summarizer_calls} summaries computed, {report.cache_hits} reused, "
            f"{report.embedded} vectors written in {report.seconds:.1f}s"
        )
        for d in report.documents:
            for f in d.summary_failures:
                click.echo(f"summary failed in {d.doc_id}: {f}", err=True)
    if not report.ok:
        sys.exit(1)
