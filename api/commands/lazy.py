"""A click group whose commands are imported when they run, not when the CLI starts.

Each command is given by a function that imports and returns it, with its one-line help kept
beside it, so
``overstory --help`` lists every command without importing any of them, and
``overstory docs`` imports the modules of ``docs`` only (not the models, the clustering or the
HTTP service that other commands need).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import click


@dataclass(frozen=True)
class LazyCommand:
    """How to import a command (a function returning it) and its one-line help for the listing."""

    load: Callable[[], click.Command]
    short_help: str


class LazyGroup(click.Group):
    """A :class:`click.Group` that also knows commands by :class:`LazyCommand`."""

    def __init__(self, *args: Any, lazy: Mapping[str, LazyCommand], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None or cmd_name not in self.lazy:
            return command
        command = self.lazy[cmd_name].load()
        self.add_command(command, cmd_name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands with their one-line help, importing none that is not loaded yet."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            if name in self.commands:
                command = self.commands[name]
                if command.hidden:
                    continue
                rows.append((name, command.get_short_help_str(limit)))
            else:
                stand_in = click.Command(name, help=self.lazy[name].short_help)
                rows.append((name, stand_in.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)
