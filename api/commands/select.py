"""``overstory select [-k K] [--docs …] [--under NODE] [--per-cluster N] [--method …]``"""

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
from indexer.index import Index
from indexer.validation import validated
from retriever.selection import SelectionRequest, select


@click.command(name="select")
@click.option("-k", "k", type=int, default=None, help="Clusters (outputs) wanted.")
@click.option(
    "--docs",
    "docs",
    multiple=True,
    help="Only these doc_ids (repeat the option or give a comma-separated list).",
)
@click.option("--under", default=None, help="Only the passages below this node_id.")
@click.option(
    "--per-cluster",
    type=int,
    default=1,
    show_default=True,
    help="Representatives per cluster, diverse (MMR).",
)
@click.option(
    "--method",
    type=click.Choice(["centroid", "rank", "balanced"]),
    default=None,
    help="Selection method (default: setting select_method, `balanced`).",
)
@click.option(
    "--budget-tokens",
    type=int,
    default=None,
    help="Without -k: K = budget ÷ (mean passage tokens × per-cluster).",
)
@store_option
@json_option
@handle_errors
def select_command(
    k: int | None,
    docs: tuple[str, ...],
    under: str | None,
    per_cluster: int,
    method: str | None,
    budget_tokens: int | None,
    store: Path | None,
    as_json: bool,
) -> None:
    """Pick K clusters of passages that together cover the corpus, without a query.

    Each cluster comes with its size, a label and its representative passages with their
    source, heading path, character span and pages. K is -k, else --budget-tokens ÷ mean passage
    tokens, else the elbow of the k-means inertia curve; the output says which rule chose it.
    """
    documents = [d.strip() for group in docs for d in group.split(",") if d.strip()]
    settings = existing_store(store)
    request = validated(
        SelectionRequest.with_limits(max_k=settings.max_k),
        {
            "k": k,
            "documents": documents or None,
            "under": under,
            "per_cluster": per_cluster,
            "method": method,
            "budget_tokens": budget_tokens,
        },
    )
    result = select(Index(settings), request).to_dict()
    if as_json:
        emit_json(result)
        return
    _print(result)


def _print(result: dict[str, Any]) -> None:
    click.echo(
        f"{result['k']} clusters of {result['n_passages']} passages "
        f"(method {result['method']}, K by {result['k_rule']})"
    )
    for c in result["clusters"]:
        click.echo(f"\n{c['cluster']}. {c['label']}  [{c['size']} passages, {c['share']:.0%}]")
        for r in c["representatives"]:
            pages = r["pages"]
            where = (
                f"pp. {pages[0]}–{pages[1]}"
                if pages
                else f"chars {r['char_start']}–{r['char_end']}"
            )
            text = " ".join(r["text"].split())
            click.echo(f"   {r['rank']}) {r['source']} {where}: {text[:100]}")
