"""The ``overstory`` command: thin wrappers over the indexer and retriever libraries.

Commands are imported lazily (by name) so that ``overstory docs`` does not pay for torch.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

# name -> "module:attribute" of a click command.
COMMANDS: dict[str, str] = {
    "ingest": "api.commands.ingest:ingest",
    "docs": "api.commands.documents:docs",
    "rm": "api.commands.documents:rm",
    "tree": "api.commands.documents:tree",
    "doctor": "api.commands.doctor:doctor",
    "diff": "api.commands.diff:diff",
    "query": "api.commands.query:query",
    "eval": "api.commands.query:evaluate",
    "serve": "api.commands.serve:serve",
    "keys": "api.commands.keys:keys",
    "select": "api.commands.select:select_command",
    "audit": "api.commands.audit:audit",
}


class LazyGroup(click.Group):
    """A group whose sub-commands are imported only when run (or listed in help)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, attr = target.split(":")
        command: Any = getattr(importlib.import_module(module), attr)
        return command  # type: ignore[no-any-return]


@click.group(cls=LazyGroup)
@click.version_option(package_name="overstory")
def main() -> None:
    """Overstory: a hierarchical summary index over long structured documents."""


if __name__ == "__main__":  # pragma: no cover
    main()
