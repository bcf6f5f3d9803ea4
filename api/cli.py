"""The ``overstory`` command: thin wrappers over the indexer and retriever libraries.

Every command module imports only what it needs at start-up; models (torch) load on first use,
so that ``overstory docs`` does not pay for them.
"""

from __future__ import annotations

import click

from api.commands.audit import audit
from api.commands.context import context
from api.commands.diff import diff
from api.commands.doctor import doctor
from api.commands.documents import docs, rm, tree
from api.commands.encoder import export_onnx, reembed
from api.commands.ingest import ingest
from api.commands.keys import keys
from api.commands.mcp import mcp_command
from api.commands.migrate import migrate
from api.commands.query import evaluate, query
from api.commands.revisions import prune, revisions
from api.commands.select import select_command
from api.commands.serve import serve
from api.commands.worker import worker


@click.group()
@click.version_option(package_name="overstory")
def main() -> None:
    """Overstory: a hierarchical summary index over long structured documents."""


for _command in (audit, diff, doctor, docs, rm, tree, ingest, keys, query, evaluate, serve):
    main.add_command(_command)
for _command in (reembed, export_onnx):
    main.add_command(_command)
main.add_command(select_command, name="select")
for _command in (revisions, prune):
    main.add_command(_command)
main.add_command(mcp_command, name="mcp")
main.add_command(worker)
main.add_command(migrate)
main.add_command(context)


if __name__ == "__main__":  # pragma: no cover
    main()
