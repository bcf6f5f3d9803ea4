"""``overstory reembed`` and ``overstory export-onnx``: the encoder of a store's vectors."""

from __future__ import annotations

from pathlib import Path

import click

from api.commands.common import (
    emit_json,
    existing_store,
    handle_errors,
    json_option,
    settings_from,
    store_option,
)
from indexer.progress import ProgressEvent


@click.command()
@store_option
@json_option
@handle_errors
def reembed(store: Path | None, as_json: bool) -> None:
    """Encode the store's vectors again with the configured encoder (summaries are kept).

    Needed after changing encoder_precision (or the embedder); a store whose vectors were made
    by another encoder is refused until then. Interrupted, it resumes where it stopped.
    """
    from indexer.index import Index

    index = Index(existing_store(store))

    def progress(ev: ProgressEvent) -> None:
        if not as_json and ev.done == ev.total:
            click.echo(f"{ev.doc_id}: {ev.total} vectors", err=True)

    done = index.reembed(progress)
    if as_json:
        emit_json({"encoder": done.encoder, "documents": done.documents, "vectors": done.vectors})
    else:
        click.echo(f"{done.documents} documents, {done.vectors} vectors encoded by {done.encoder}")


@click.command(name="export-onnx")
@click.option(
    "--precision",
    type=click.Choice(["fp32", "int8", "all"]),
    default="all",
    show_default=True,
    help="Which file to write.",
)
@handle_errors
def export_onnx(precision: str) -> None:
    """Export the bundled MiniLM to ONNX (done by `make install`; needs torch once)."""
    from indexer.embedding.onnx_export import default_dir, ensure

    folder = settings_from(None).onnx_dir or default_dir()
    for p in ("fp32", "int8") if precision == "all" else (precision,):
        click.echo(ensure(folder, p))
