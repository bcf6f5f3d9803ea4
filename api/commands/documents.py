"""``overstory docs``, ``overstory tree DOC``, ``overstory rm DOC``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from api.commands.common import (
    emit_json,
    existing_store,
    handle_errors,
    json_option,
    store_option,
)


@click.command()
@store_option
@json_option
@handle_errors
def docs(store: Path | None, as_json: bool) -> None:
    """List the indexed documents."""
    from indexer.listing import served_documents
    from indexer.store.location import existing_catalog

    rows = served_documents(existing_catalog(store))
    if as_json:
        emit_json({"documents": rows})
        return
    for r in rows:
        click.echo(
            f"{r['doc_id']}  rev {r['revision'][:12]}  {r.get('passages', 0)} passages, "
            f"{r.get('summaries', 0)} summaries"
        )


@click.command()
@click.argument("doc_id")
@store_option
@json_option
@handle_errors
def tree(doc_id: str, store: Path | None, as_json: bool) -> None:
    """Show a document's tree of headings, clusters, summaries and passages."""
    from indexer.index import Index

    root = Index(existing_store(store)).tree(doc_id)
    if as_json:
        emit_json(root)
        return
    _print(root, 0)


def _print(node: dict[str, Any], depth: int) -> None:
    pad = "  " * depth
    if node["level"] == "passage":
        text = " ".join((node["text"] or "").split())
        click.echo(f"{pad}- [{node['char_start']}:{node['char_end']}] {text[:70]}")
        return
    pages = f" pp. {node['pages'][0]}–{node['pages'][1]}" if node["pages"] else ""
    click.echo(f"{pad}{node['level']}: {node['title'] or '(untitled)'}{pages}")
    for child in node["children"]:
        _print(child, depth + 1)


@click.command()
@click.argument("doc_id")
@store_option
@json_option
@handle_errors
def rm(doc_id: str, store: Path | None, as_json: bool) -> None:
    """Delete a document, all its revisions and its vectors."""
    from api.service.actions import record_cli_write
    from api.service.wiring import open_stack
    from indexer.doc_ids import normalize_doc_id

    doc_id = normalize_doc_id(doc_id)
    index = open_stack(existing_store(store)).index
    index.delete(doc_id)  # with the publish hooks
    record_cli_write(index.catalog, "document.delete", doc_id=doc_id)
    if as_json:
        emit_json({"deleted": doc_id})
    else:
        click.echo(f"deleted {doc_id}")
