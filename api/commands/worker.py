"""``overstory worker``: run ingestion jobs queued by any replica of the service."""

from __future__ import annotations

import logging
from pathlib import Path

import click

from api.commands.common import handle_errors, settings_from, store_option


@click.command()
@store_option
@click.option(
    "--database-url",
    default=None,
    help="The shared catalog (setting database_url; default: the store's own SQLite file).",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=None,
    help="Jobs this process runs at once (default: setting max_concurrent_jobs).",
)
@click.option("--worker-id", default=None, help="Name of this worker in the jobs it runs.")
@handle_errors
def worker(
    store: Path | None,
    database_url: str | None,
    concurrency: int | None,
    worker_id: str | None,
) -> None:
    """Run queued ingestion jobs until SIGTERM (then finish, or give back, the running ones).

    Any number of workers, on any machine, may share one catalog (database_url), the vector
    store (chroma_url) and the uploads folder (uploads_dir); the service enqueues, the workers
    claim the jobs under a lease, and a job whose worker dies is taken over by another.
    """
    from api.service.worker_process import run_worker

    logging.basicConfig(level=logging.INFO, format="%(levelname)s:     %(name)s: %(message)s")
    settings = settings_from(store, database_url=database_url)
    run_worker(
        settings,
        concurrency=concurrency or settings.max_concurrent_jobs,
        worker_id=worker_id,
    )
