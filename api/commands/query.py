"""``overstory query "…"`` and ``overstory eval QUESTIONS.jsonl``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import click

from api.commands.common import (
    emit_json,
    existing_store,
    handle_errors,
    json_option,
    store_option,
)
from api.commands.comparison_text import print_comparisons
from indexer.errors import InvalidRequestError
from retriever import open_retriever
from retriever.answers import Hit


@click.command()
@click.argument("text")
@click.option("-k", "k", type=int, default=5, show_default=True, help="Number of results.")
@click.option(
    "--doc", "documents", multiple=True, metavar="DOC_ID", help="Search only this document."
)
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    type=click.Choice(["passage", "summary"]),
    help="Return only this kind of result (repeatable).",
)
@click.option("--expand", is_flag=True, help="Give each summary its 3 best supporting passages.")
@click.option(
    "--intent",
    default="auto",
    show_default=True,
    metavar="auto|passage|section|document",
    help="How the query is read: auto (estimated), or forced.",
)
@click.option(
    "--route",
    default="auto",
    show_default=True,
    metavar="auto|comparison|retrieval",
    help="auto: a question about change is answered by comparing revisions; or forced.",
)
@click.option(
    "--no-change-summary",
    "no_change_summary",
    is_flag=True,
    help="Comparison without the change summary (no summarizer call).",
)
@store_option
@json_option
@handle_errors
def query(
    text: str,
    k: int,
    documents: tuple[str, ...],
    kinds: tuple[str, ...],
    expand: bool,
    intent: str,
    route: str,
    no_change_summary: bool,
    store: Path | None,
    as_json: bool,
) -> None:
    """Search passages and summaries; every result says what it is and where it comes from.
    A question about change is answered by comparing revisions."""
    retriever = open_retriever(existing_store(store))
    request = retriever.request(
        text,
        k=k,
        documents=list(documents) or None,
        kinds=list(kinds) or None,
        expand=expand,
        intent=intent,
        route=route,
        change_summary=not no_change_summary,
    )
    answer = retriever.query(request)
    if as_json:
        emit_json(answer.to_json())
        return
    if answer.kind == "comparison":
        print_comparisons(answer)
        return
    if not answer.results:
        click.echo("no results")
    for item in answer.results:
        _print_result(item, indent="")
        for support in item.support or []:
            _print_result(support, indent="      ")


def _print_result(item: Hit, *, indent: str) -> None:
    where = " › ".join([item.doc_id, *item.heading_path])
    pages = item.pages
    page = ""
    if pages:
        page = f" p. {pages[0]}" if pages[0] == pages[1] else f" pp. {pages[0]}–{pages[1]}"
    rank = f"{item.rank}. " if item.rank is not None else "- "
    click.echo(
        f"{indent}{rank}[{item.label}] {where}{page}"
        f" chars {item.char_start}–{item.char_end}  score {item.score:.3f}"
    )
    body = " ".join(item.text.split())
    for line in textwrap.wrap(body[:400] + ("…" if len(body) > 400 else ""), 96):
        click.echo(f"{indent}   {line}")


@click.command(name="eval")
@click.argument("questions", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--split", default=None, help="Only the questions of this split (e.g. heldout, tune)."
)
@store_option
@json_option
@handle_errors
def evaluate(questions: Path, split: str | None, store: Path | None, as_json: bool) -> None:
    """Score Overstory, Overstory with passages only, and a flat baseline (passages only, dense
    only) on QUESTIONS.jsonl, per question kind and intent, and how well the intent was read.

    Each line: {"id", "question", "kind": "specific"|"global", "intent"?, "documents"?,
    "split"?, "gold": {"source", "heading_path", "evidence"}}.
    """
    from retriever.evaluation import Evaluation, load_questions

    settings = existing_store(store)
    items = [q for q in load_questions(questions) if split is None or q.split == split]
    if not items:
        raise InvalidRequestError(f"{questions}: no questions of split {split!r}")
    evaluation = Evaluation(open_retriever(settings))
    result = evaluation.run(items)
    for qid in evaluation.unresolved:
        click.echo(f"warning: gold of {qid} is not in the index", err=True)
    if as_json:
        emit_json(result.to_json())
        return
    header = ("system", "group", "n", "hit@1", "hit@3", "hit@5", "mrr@10", "cov@5")
    click.echo("{:10} {:9} {:>4} {:>6} {:>6} {:>6} {:>7} {:>6}".format(*header))
    for system in ("overstory", "passages", "flat"):
        for group, m in result.systems[system].items():
            click.echo(
                f"{system:10} {group:9} {m.n:>4} {m.hit_at_1:>6.3f} {m.hit_at_3:>6.3f}"
                f" {m.hit_at_5:>6.3f} {m.mrr_at_10:>7.3f} {m.coverage_at_5:>6.3f}"
            )
    click.echo(f"intent read right: {result.intent.accuracy:.3f}")
