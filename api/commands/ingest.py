"""``overstory ingest PATH…``"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

import click

from api.commands.common import emit_json, handle_errors, json_option, settings_from, store_option
from api.service.actions import record_cli_write
from api.service.wiring import open_stack
from indexer.index import Index
from indexer.progress import ProgressBars, ProgressFn, ProgressLines
from indexer.reports import IngestReport
from indexer.store.location import has_catalog


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--dry-run",
    is_flag=True,
    help="Report the summaries that would be computed and reused and the token estimate; "
    "call no model, write nothing.",
)
@click.option(
    "--manual",
    is_flag=True,
    help="All PATHS are one manual: one document, one tree, one manual-level summary (a "
    "folder whose index.html starts a rel=next chain, or an HTML file, is read along it).",
)
@click.option("--doc-id", help="The manual's doc_id (with --manual; default: the path's name).")
@click.option(
    "--sync",
    is_flag=True,
    help="Then delete every stored document that PATHS no longer hold, and list them.",
)
@store_option
@json_option
@handle_errors
def ingest(
    paths: tuple[Path, ...],
    store: Path | None,
    as_json: bool,
    dry_run: bool,
    manual: bool,
    doc_id: str | None,
    sync: bool,
) -> None:
    """Index files and folders; re-ingesting a changed file makes a new revision.

    A folder's files get the path relative to the folder as their doc_id. Exit code 1 when any
    file failed (the others are still ingested) or a summary failed (run the same ingest again
    to retry only the nodes left without one).
    """
    settings = settings_from(store)
    how: dict[str, Any] = {"manual": manual, "doc_id": doc_id}
    if dry_run:
        if has_catalog(settings):
            _dry_run(open_stack(settings).index, paths, as_json=as_json, how=how)
            return
        # no store yet: plan against an empty one, and write nothing where it would be
        with tempfile.TemporaryDirectory(prefix="overstory-plan-") as empty:
            planned = settings.model_copy(update={"store": Path(empty)})
            _dry_run(open_stack(planned).index, paths, as_json=as_json, how=how)
        return
    index = open_stack(settings).index
    progress: ProgressFn = ProgressLines(sys.stderr, as_json=as_json)
    bars = None
    if not as_json and sys.stderr.isatty():
        progress = bars = ProgressBars(sys.stderr)
    try:
        report = index.ingest_paths(list(paths), progress=progress, sync=sync, **how)
    finally:
        if bars is not None:
            bars.close()
    for d in report.documents:
        if d.status != "unchanged":
            record_cli_write(index.catalog, "document.ingest", doc_id=d.doc_id, revision=d.revision)
    if as_json:
        emit_json(report.to_json())
        _echo_skipped(report.skipped)
    else:
        _echo_report(report)
    if not report.ok:
        sys.exit(1)


def _echo_report(report: IngestReport) -> None:
    """The human-readable report of an ingest (errors and failures on stderr)."""
    for d in report.documents:
        click.echo(
            f"{d.status:9} {d.doc_id}  {d.passages} passages, {d.summaries} summaries, "
            f"depth {d.depth}"
        )
    for e in report.errors:
        click.echo(f"failed    {e['doc_id']}: {e['message']}", err=True)
    for gone in report.removed:
        click.echo(f"removed   {gone}  (no longer in the paths ingested)")
    _echo_skipped(report.skipped)
    click.echo(
        f"{report.summarizer_calls} summaries computed, {report.cache_hits} reused, "
        f"{report.embedded} vectors written in {report.seconds:.1f}s"
    )
    for d in report.documents:
        for f in d.summary_failures:
            where = " > ".join(f.get("heading_path") or []) or "(document)"
            click.echo(
                f"summary failed in {d.doc_id}: {f.get('level', 'node')} {where}: {f['error']}",
                err=True,
            )
    if any(d.summary_failures for d in report.documents):
        click.echo("run the same ingest again to retry only the failed summaries", err=True)


def _dry_run(index: Index, paths: tuple[Path, ...], *, as_json: bool, how: dict[str, Any]) -> None:
    plan = index.plan_paths(list(paths), progress=ProgressLines(sys.stderr, as_json=as_json), **how)
    data = plan.to_json()
    if as_json:
        emit_json(data)
        _echo_skipped(plan.skipped)
    else:
        for d in plan.documents:
            click.echo(
                f"{d.status:9} {d.doc_id}  {d.summaries_computed} to compute, "
                f"{d.summaries_reused} reused, ~{d.input_tokens:,} in / ~{d.output_tokens:,} "
                "out tokens"
            )
        for e in plan.errors:
            click.echo(f"failed    {e['doc_id']}: {e['message']}", err=True)
        _echo_skipped(plan.skipped)
        est = data["estimate"]
        s = data["summarizer"]
        click.echo(
            f"dry run: {data['summaries_computed']} summaries to compute, "
            f"{data['summaries_reused']} reused; {s['backend']}/{s['model']}@{s['prompt_version']}"
            f": {est['model_calls']} model calls, ~{est['input_tokens']:,} input and "
            f"~{est['output_tokens']:,} output tokens (estimate); nothing written"
        )
    if plan.errors:
        sys.exit(1)


def _echo_skipped(skipped: list[dict[str, Any]]) -> None:
    for s in skipped:
        click.echo(f"skipped   {s['source']}: {s['reason']}", err=True)
