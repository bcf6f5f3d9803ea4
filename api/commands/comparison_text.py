"""How ``overstory query`` prints a comparison (a question about change) for a terminal."""

from __future__ import annotations

import textwrap

import click

from retriever.answers import QueryAnswer


def print_comparisons(answer: QueryAnswer) -> None:
    """Each comparison: the revisions, the scope, the change summary, then the changes."""
    route = answer.route
    if route is not None:
        click.echo(f"comparison (route: {', '.join(route.rules) or route.source})")
    if not answer.comparisons:
        click.echo("no document to compare")
    for comp in answer.comparisons or []:
        old, new = comp.from_, comp.to
        click.echo(
            f"{comp.doc_id}: {old.revision[:12]} ({old.ingested}) → "
            f"{new.revision[:12]} ({new.ingested})"
        )
        click.echo(f"  scope: {' › '.join(comp.scope.heading_path) or comp.doc_id}")
        if comp.note:
            click.echo(f"  note: {comp.note}")
        summary = comp.change_summary
        if summary and summary.text:
            click.echo(f"  [{summary.label}]")
            _wrapped(summary.text, "    ")
        value = comp.value
        if value and not value.changed:
            click.echo(f"  the passages about {' '.join(value.terms)} did not change:")
            for quote in value.unchanged:
                click.echo(f"    [quote] {' › '.join(quote.heading_path[1:])}")
                _wrapped(quote.text[:300], "      ")
        for change in comp.changes:
            where = " › ".join(change.heading_path[1:] or change.heading_path) or comp.doc_id
            if change.old_heading_path:
                where = f"{' › '.join(change.old_heading_path[1:])} → {where}"
            click.echo(f"  {change.change:8} {where}")
            for side, quotes in (("before", change.before), ("after", change.after)):
                for quote in quotes[:2]:
                    click.echo(f"    {side} [quote]")
                    _wrapped(quote.text[:300], "      ")


def _wrapped(text: str, indent: str) -> None:
    for line in textwrap.wrap(" ".join(text.split()), 96):
        click.echo(f"{indent}{line}")
