"""``overstory mcp``: the MCP server for agents, over stdio or streamable HTTP."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import click

from api.commands.common import existing_store, handle_errors, store_option
from api.commands.serve import _check_port
from api.service.keys import KeyStore
from api.service.wiring import open_stack
from indexer.errors import ConfigError

INSTALL_HINT = "the MCP server needs the mcp extra: pip install 'overstory[mcp]'"


@click.command(name="mcp")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio: a local MCP client starts this command; http: streamable HTTP at /v1/mcp.",
)
@click.option("--host", default=None, help="HTTP: address to listen on (setting host).")
@click.option("--port", type=int, default=None, help="HTTP: port to listen on (setting port).")
@store_option
@handle_errors
def mcp_command(transport: str, host: str | None, port: int | None, store: Path | None) -> None:
    """Serve the store's search, outline, read_node, what_changed, select, list_documents and
    audit_queue to MCP clients (agents, desktop assistants).

    Over stdio the client runs this command as the local user, who may read the store (as
    with the CLI). Over HTTP every call needs an API key (`Authorization: Bearer …`) with the
    role its tool needs, as the REST API does; nothing is written to stdout but the protocol.
    """
    try:
        from api.mcp import build_server, run_http, run_stdio
    except ImportError as exc:
        raise ConfigError(INSTALL_HINT, detail={"missing": exc.name}) from exc

    # Logs go to stderr: over stdio, stdout carries the protocol.
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="%(levelname)s: %(name)s: %(message)s"
    )
    settings = existing_store(store, host=host, port=port)
    stack = open_stack(settings)
    server = build_server(stack, version=_version())
    if transport == "stdio":
        run_stdio(server)
        return
    if settings.auth == "keys" and not KeyStore(stack.index.catalog).count():
        click.echo(
            f"this store has no API key yet: make one for the MCP client with\n"
            f"  overstory keys create --role reader --store {settings.store}",
            err=True,
        )
    _check_port(settings.host, settings.port)
    click.echo(f"MCP over streamable HTTP: http://{settings.host}:{settings.port}/v1/mcp", err=True)
    run_http(server, settings, stack, log_level="warning", timeout_graceful_shutdown=10)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("overstory")
    except PackageNotFoundError:
        return "0.0.0"
