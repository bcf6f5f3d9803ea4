"""``overstory context "…" --budget N``: the budgeted context a chatbot puts in its prompt.

Nothing heavy at import: the retriever (and its models) load when the command runs.
"""

from __future__ import annotations

from pathlib import Path

import click

from api.commands.common import emit_json, existing_store, handle_errors, json_option, store_option


@click.command(name="context")
@click.argument("text")
@click.option(
    "--budget",
    type=int,
    default=1000,
    show_default=True,
    help="Tokens the context may take, labels included (50–32000).",
)
@click.option(
    "--tokenizer",
    type=click.Choice(["minilm", "cl100k_base", "words"]),
    default="minilm",
    show_default=True,
    help="How tokens are counted: the bundled embedding model's tokenizer, GPT-4's, or "
    "words × 1.3.",
)
@click.option(
    "--doc", "documents", multiple=True, metavar="DOC_ID", help="Only this document (repeatable)."
)
@click.option(
    "--intent",
    default="auto",
    show_default=True,
    metavar="auto|passage|section|document",
    help="How the question is read: auto (estimated), or forced.",
)
@store_option
@json_option
@handle_errors
def context(
    text: str,
    budget: int,
    tokenizer: str,
    documents: tuple[str, ...],
    intent: str,
    store: Path | None,
    as_json: bool,
) -> None:
    """The best mix of summaries and passages that fits a token budget, in reading order, each
    piece labelled and numbered for citation; --json prints what POST /v1/context answers."""
    from api.routes.context import ContextResponse
    from indexer.validation import validated
    from retriever import open_retriever
    from retriever.context import ContextRequest, build_context

    retriever = open_retriever(existing_store(store))
    request = validated(
        ContextRequest.with_limits(retriever.limits),
        {
            "query": text,
            "budget": budget,
            "tokenizer": tokenizer,
            "documents": list(documents) or None,
            "intent": intent,
        },
    )
    result = build_context(retriever, request)
    if as_json:
        emit_json(ContextResponse.of(result).model_dump(mode="json"))
        return
    click.echo(result.text or "(nothing fits the budget)")
    click.echo(
        f"\n-- {result.tokens} of {result.budget} tokens ({result.tokenizer}), "
        f"{len(result.pieces)} pieces, read as {result.intent}",
        err=True,
    )
