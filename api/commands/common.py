"""What every CLI command shares: settings from options, JSON output, error handling."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from indexer.errors import OverstoryError, error_body

if TYPE_CHECKING:
    from indexer.settings import Settings

F = TypeVar("F", bound=Callable[..., Any])


def store_option(fn: F) -> F:
    """``--store DIR``: the index folder (default: setting ``store``, ``./.overstory``)."""
    return click.option(
        "--store",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Folder holding the index (env OVERSTORY_STORE; default ./.overstory).",
    )(fn)


def json_option(fn: F) -> F:
    """``--json``: print one JSON document instead of text."""
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")(fn)


def settings_from(store: Path | None, **overrides: Any) -> Settings:
    """Settings from the environment and TOML file, with the command's options on top."""
    from indexer.settings import load_settings  # pydantic: not for the commands that skip it

    return load_settings(store=store, **overrides)


def existing_store(store: Path | None, **overrides: Any) -> Settings:
    """:func:`settings_from` for a command that only reads: the store must exist already.

    Raises:
        NotFoundError: No store at that path (a mistyped ``--store``).
    """
    from indexer.store.location import require_store

    settings = settings_from(store, **overrides)
    require_store(settings)
    return settings


def emit_json(data: Any) -> None:
    """Print a JSON document on stdout (a typed answer as its HTTP body)."""
    # A typed answer means pydantic is loaded; a command that has none must not load it.
    pydantic = sys.modules.get("pydantic")
    if pydantic is not None and isinstance(data, pydantic.BaseModel):
        data = data.model_dump(mode="json", by_alias=True)
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def handle_errors(fn: F) -> F:
    """Turn library errors into a one-line message (or JSON error body) and exit code 1."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except OverstoryError as exc:
            if kwargs.get("as_json"):
                emit_json(error_body(exc))
            click.echo(f"error: {exc.message}", err=True)
            sys.exit(1)

    return wrapper  # type: ignore[return-value]
