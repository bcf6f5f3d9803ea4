"""``overstory serve``: the HTTP service."""

from __future__ import annotations

import logging
import socket
import sys
import time
from pathlib import Path

import click

from api.commands.common import handle_errors, settings_from, store_option
from api.service.keys import BOOTSTRAP_KEY_FILE, KeyStore, write_secret
from api.service.wiring import open_stack
from indexer.errors import ConfigError
from indexer.index import Index
from indexer.progress import ProgressEvent, ProgressFn
from indexer.settings import Settings


def _print_progress() -> ProgressFn:
    last_key = ("", "")
    last_at = 0.0

    def show(ev: ProgressEvent) -> None:
        nonlocal last_key, last_at
        now = time.monotonic()
        key = (ev.doc_id, ev.stage)
        if key == last_key and now - last_at < 2.0 and ev.done < ev.total:
            return
        last_key, last_at = key, now
        click.echo(f"  {ev.doc_id}: {ev.stage} {ev.done}/{ev.total}", err=True)

    return show


def _index_fixtures(index: Index, folder: Path) -> None:
    if index.catalog.documents():
        click.echo(f"store {index.settings.store} has documents: not indexing {folder}", err=True)
        return
    click.echo(f"first start: indexing {folder} into {index.settings.store} …", err=True)
    report = index.ingest_paths([folder], progress=_print_progress())
    for d in report.documents:
        click.echo(
            f"  {d.status:9} {d.doc_id}: {d.passages} passages, {d.summaries} summaries", err=True
        )
    for e in report.errors:
        click.echo(f"  failed    {e['doc_id']}: {e['message']}", err=True)
    click.echo(f"indexed in {report.seconds:.1f}s", err=True)


def _bootstrap_key(settings: Settings, index: Index) -> None:
    """On a store without any key, create an admin key and write it to a file of the store.

    The key goes to ``<store>/bootstrap-admin.key`` (mode 0600), never to the server's log:
    only the file's path is printed.
    """
    store = KeyStore(index.catalog)
    if store.count():
        return
    path = settings.store / BOOTSTRAP_KEY_FILE
    key, record = store.create(role="admin", name="bootstrap-admin")
    write_secret(path, key + "\n")
    url = f"http://{settings.host}:{settings.port}"
    bar = "=" * 78
    click.echo(
        f"\n{bar}\n"
        f" This store had no API key, so an admin key ({record.key_id}) was created and\n"
        f" written to {path} (readable by this user only). Use it in\n"
        f" {url}/docs (Authorize) or:\n"
        f'     curl -H "Authorization: Bearer $(cat {path})" {url}/v1/documents\n'
        f" Make keys for clients: overstory keys create --role reader --store {settings.store}\n"
        f" Revoke this one later:  overstory keys revoke {record.key_id} --store {settings.store}\n"
        f" and delete the file once the key is kept elsewhere.\n"
        f"{bar}\n",
        err=True,
    )


def _check_port(host: str, port: int) -> None:
    """ConfigError when ``host:port`` cannot be listened on (another server has it)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise ConfigError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc} "
                "(is another server running there? choose another --port)"
            ) from exc


@click.command()
@click.option("--host", default=None, help="Address to listen on (setting host; 127.0.0.1).")
@click.option("--port", type=int, default=None, help="Port to listen on (setting port; 8000).")
@store_option
@click.option(
    "--database-url",
    default=None,
    help="The catalog (setting database_url; default: the store's own SQLite file).",
)
@click.option(
    "--index-fixtures",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Ingest this folder before serving when the store has no documents yet.",
)
@click.option("--access-log/--no-access-log", default=True, help="Log every request.")
@handle_errors
def serve(
    host: str | None,
    port: int | None,
    store: Path | None,
    database_url: str | None,
    index_fixtures: Path | None,
    access_log: bool,
) -> None:
    """Serve the HTTP API (OpenAPI docs at /docs).

    Every /v1 request needs an API key (`overstory keys create`); on a store without any key
    an admin key is created and written to <store>/bootstrap-admin.key (mode 0600; only the
    path is printed). Setting auth = "off" (OVERSTORY_AUTH=off) serves without keys, on a
    loopback host only, for local development.
    """
    import uvicorn

    from api.app import create_app

    logging.basicConfig(level=logging.INFO, format="%(levelname)s:     %(name)s: %(message)s")
    settings = settings_from(store, host=host, port=port, database_url=database_url)
    stack = open_stack(settings)
    app = create_app(settings, stack=stack)
    # Refused here, in one line, rather than as a traceback from the app's start-up or bind.
    app.state.jobs.acquire()
    _check_port(settings.host, settings.port)
    if index_fixtures is not None:
        _index_fixtures(stack.index, index_fixtures)
    if settings.auth == "keys":
        _bootstrap_key(settings, stack.index)
    click.echo(f"serving {settings.store} on http://{settings.host}:{settings.port}", err=True)
    sys.stderr.flush()
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        access_log=access_log,
        log_level="info",
        timeout_graceful_shutdown=30,
    )
