"""A real PostgreSQL 15 for the tests: Debian's binaries, a temporary cluster on loopback.

PostgreSQL refuses to run as root (the tests run as root here and in CI), so the cluster is
initialised and run as the unprivileged ``postgres`` user in a folder it owns. Trust auth on
127.0.0.1 and a free port; durability off (a test cluster is thrown away). Each test gets its
own database, copied from a template migrated once (``CREATE DATABASE … TEMPLATE``).
"""

from __future__ import annotations

import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def _newest_bin() -> Path:
    """Debian's newest installed PostgreSQL (15 on bookworm, 17 on trixie), else 15's path."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    return found[-1].parent if found else Path("/usr/lib/postgresql/15/bin")


# conftest drops every OVERSTORY_* variable, so this one is named otherwise
PG_BIN = Path(os.environ["TEST_PG_BIN"]) if os.environ.get("TEST_PG_BIN") else _newest_bin()
TEMPLATE = "overstory_template"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresUnavailable(RuntimeError):
    """PostgreSQL is not installed here (the message says what to install)."""


class PostgresServer:
    """One temporary PostgreSQL cluster, started by :meth:`start`, removed by :meth:`stop`."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="overstory-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self._names = itertools.count(1)
        self._as_user: list[str] = []

    def start(self) -> PostgresServer:
        """initdb and start the cluster, then migrate the template database."""
        missing = [b for b in ("initdb", "pg_ctl") if not (PG_BIN / b).is_file()]
        if missing:
            raise PostgresUnavailable(
                f"PostgreSQL 15 not found ({PG_BIN}/{missing[0]} missing): "
                "apt-get install postgresql-15"
            )
        if os.geteuid() == 0:
            if shutil.which("runuser") is None:
                raise PostgresUnavailable("running as root without runuser to drop to postgres")
            self._as_user = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.root, "postgres", "postgres")
        self._run(
            str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
            "-E", "UTF8", "--locale=C", "--no-sync",
        )  # fmt: skip
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run(
            str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-o", options,
            "-l", str(self.root / "server.log"), "-w", "-t", "60", "start",
        )  # fmt: skip
        self.sql(f"CREATE DATABASE {TEMPLATE}")
        from indexer.store.schema import migrate

        migrate(self.url(TEMPLATE))
        return self

    def url(self, database: str) -> str:
        """The URL of one database of the cluster."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def sql(self, statement: str, database: str = "postgres") -> None:
        """Run one statement outside a transaction (CREATE/DROP DATABASE)."""
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as conn:
            conn.execute(statement)

    def create_database(self) -> str:
        """A new database with the migrated schema and no rows; its URL."""
        name = f"test_{os.getpid()}_{next(self._names)}"
        self.sql(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop a database made by :meth:`create_database` (its connections closed)."""
        self.sql(f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")

    def stop(self) -> None:
        """Stop the cluster and remove its folder."""
        if (self.data / "postmaster.pid").exists():
            self._run(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def _run(self, *cmd: str) -> None:
        proc = subprocess.run(
            [*self._as_user, *cmd], capture_output=True, text=True, timeout=120, cwd=self.root
        )
        if proc.returncode != 0:  # installed but broken: a failure, not a skip
            raise RuntimeError(
                f"{Path(cmd[0]).name} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}"
            )
