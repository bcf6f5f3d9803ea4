"""An Overstory cluster on loopback: the catalog, `chroma run`, two API replicas, two workers.

    python -m scripts.cluster start [--dir DIR] [--database postgres|sqlite]
    python -m scripts.cluster status [--dir DIR]
    python -m scripts.cluster stop [--dir DIR]

``make cluster`` and ``make cluster-stop`` run the first and the last. The catalog is PostgreSQL
from the Debian package (``initdb`` into a temporary folder, run as the unprivileged ``postgres``
user when started as root, since PostgreSQL refuses to run as root) or, with ``--database
sqlite``, one SQLite file that every process on this machine shares. Every process listens on
127.0.0.1 on its own free port; what runs where is written to ``DIR/cluster.json``, which
``stop`` reads. The tests and the cluster benchmark start the same layout through
:class:`Cluster`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
DEFAULT_DIR = ROOT / ".cluster"
PG_USER = "postgres"  # the Debian package's unprivileged account


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pg_bin() -> Path | None:
    """The newest PostgreSQL server binaries of the Debian package, or None."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: p.parent)
    return found[-1].parent if found else None


def _wait_http(url: str, proc: subprocess.Popen[bytes] | None, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"{url}: the process exited ({proc.returncode}):\n{tail}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer within {timeout:.0f} s")


@dataclass
class Process:
    """One process of the cluster."""

    name: str
    pid: int
    port: int | None = None
    log: str = ""
    popen: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        """Its HTTP address (replicas and Chroma)."""
        return f"http://127.0.0.1:{self.port}"

    def alive(self) -> bool:
        """Whether the process still runs."""
        if self.popen is not None:
            return self.popen.poll() is None
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def kill9(self) -> None:
        """``kill -9``: no chance to finish or give anything back."""
        os.kill(self.pid, signal.SIGKILL)
        if self.popen is not None:
            self.popen.wait(30)

    def terminate(self, timeout: float = 60.0) -> None:
        """SIGTERM, then SIGKILL after ``timeout`` s."""
        if not self.alive():
            return
        os.kill(self.pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while self.alive() and time.monotonic() < deadline:
            if self.popen is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.popen.wait(0.2)
            else:
                time.sleep(0.2)
        if self.alive():
            os.kill(self.pid, signal.SIGKILL)
            if self.popen is not None:
                self.popen.wait(30)


@dataclass
class Cluster:
    """The layout of ``make cluster``, started and stopped as a whole."""

    root: Path = DEFAULT_DIR
    database: str = "postgres"
    replicas: int = 2
    workers: int = 2
    env: dict[str, str] = field(default_factory=dict)
    processes: list[Process] = field(default_factory=list)
    database_url: str = ""
    chroma_url: str = ""
    pg_data: str = ""

    @property
    def state_file(self) -> Path:
        """Where the running layout is written."""
        return self.root / "cluster.json"

    def replica_urls(self) -> list[str]:
        """The API replicas' addresses."""
        return [p.url for p in self.processes if p.name.startswith("replica")]

    def process(self, name: str) -> Process:
        """One process by name (``replica-0``, ``worker-1``, ``chroma``, ``postgres``)."""
        return next(p for p in self.processes if p.name == name)

    def worker_env(self) -> dict[str, str]:
        """The environment every replica and worker runs with."""
        return {
            **os.environ,
            "ANONYMIZED_TELEMETRY": "False",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "OVERSTORY_DATABASE_URL": self.database_url,
            "OVERSTORY_CHROMA_URL": self.chroma_url,
            "OVERSTORY_UPLOADS_DIR": str(self.root / "uploads"),
            "OVERSTORY_RUN_JOBS": "false",
            "OVERSTORY_JOB_MAX_ATTEMPTS": "3",
            "OVERSTORY_MAX_CONCURRENT_JOBS": str(self.workers),
            **self.env,
        }

    # starting ---------------------------------------------------------------------------
    def start(self) -> Cluster:
        """Start everything (stopping what was started if one part fails)."""
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "logs").mkdir(exist_ok=True)
        (self.root / "uploads").mkdir(exist_ok=True)
        try:
            self._start_database()
            self._start_chroma()
            self._migrate()
            for i in range(self.replicas):  # one by one: the first makes the bootstrap key
                self._start_replica(i)
            for i in range(self.workers):
                self._start_worker(i)
        except BaseException:
            self.stop()
            raise
        self.save()
        return self

    def _spawn(self, name: str, cmd: list[str], *, port: int | None = None) -> Process:
        log = self.root / "logs" / f"{name}.log"
        with open(log, "ab") as out:
            popen = subprocess.Popen(
                cmd,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=self.worker_env(),
                cwd=ROOT,
                start_new_session=True,  # outlives `make cluster`; stopped by `make cluster-stop`
            )
        proc = Process(name=name, pid=popen.pid, port=port, log=str(log), popen=popen)
        self.processes.append(proc)
        return proc

    def _start_database(self) -> None:
        if self.database == "sqlite":
            self.database_url = str(self.root / "catalog.db")
            return
        binaries = pg_bin()
        if binaries is None:
            raise RuntimeError(
                "PostgreSQL is not installed: apt-get install postgresql (or use --database sqlite)"
            )
        # A temporary folder the unprivileged user can reach (not below a private folder).
        data, port = Path(tempfile.mkdtemp(prefix="overstory-pg-")), free_port()
        self.pg_data = str(data)
        as_pg = _as_postgres()
        _chown(data)
        _run([*as_pg, str(binaries / "initdb"), "-D", str(data), "-U", "overstory",
              "--auth=trust", "-E", "UTF8"])  # fmt: skip
        log = data / "server.log"
        options = f"-p {port} -k {data} -c listen_addresses=127.0.0.1"
        _run([*as_pg, str(binaries / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(log),
              "-w", "start"])  # fmt: skip
        pid = int((data / "postmaster.pid").read_text().split()[0])
        self.processes.append(Process(name="postgres", pid=pid, port=port, log=str(log)))
        _run([*as_pg, str(binaries / "psql"), "-h", "127.0.0.1", "-p", str(port), "-U",
              "overstory", "-d", "postgres", "-tAc",
              "SELECT 1 FROM pg_database WHERE datname = 'overstory'"],
             check_output="1")  # fmt: skip
        self.database_url = f"postgresql://overstory@127.0.0.1:{port}/overstory"

    def _migrate(self) -> None:
        if self.database != "postgres":
            return
        log = self.root / "logs" / "migrate.log"
        with open(log, "ab") as out:
            result = subprocess.run(
                [str(BIN / "overstory"), "migrate"],
                env=self.worker_env(),
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                check=False,
            )
        if result.returncode != 0:
            raise RuntimeError(f"overstory migrate failed:\n{log.read_text()[-2000:]}")

    def _start_chroma(self) -> None:
        port = free_port()
        cmd = [str(BIN / "chroma"), "run", "--path", str(self.root / "chroma"),
               "--host", "127.0.0.1", "--port", str(port)]  # fmt: skip
        proc = self._spawn("chroma", cmd, port=port)
        _wait_http(f"{proc.url}/api/v2/heartbeat", proc.popen, Path(proc.log), 120)
        self.chroma_url = proc.url

    def _start_replica(self, i: int) -> None:
        port = free_port()
        cmd = [str(BIN / "overstory"), "serve", "--host", "127.0.0.1", "--port", str(port),
               "--store", str(self.root / f"replica-{i}"), "--no-access-log"]  # fmt: skip
        proc = self._spawn(f"replica-{i}", cmd, port=port)
        _wait_http(f"{proc.url}/healthz", proc.popen, Path(proc.log), 240)

    def _start_worker(self, i: int) -> Process:
        """Start ``worker-i`` (also used to replace a killed one)."""
        cmd = [str(BIN / "overstory"), "worker", "--store", str(self.root / f"worker-{i}"),
               "--concurrency", "1", "--worker-id", f"worker-{i}"]  # fmt: skip
        proc = self._spawn(f"worker-{i}", cmd)
        deadline = time.monotonic() + 240
        while "consuming" not in Path(proc.log).read_text(errors="replace"):
            if not proc.alive() or time.monotonic() > deadline:
                raise RuntimeError(f"worker-{i} did not start:\n{Path(proc.log).read_text()}")
            time.sleep(0.2)
        return proc

    def restart_worker(self, name: str) -> Process:
        """Start a stopped (or killed) worker again under the same name."""
        self.processes = [p for p in self.processes if p.name != name]
        proc = self._start_worker(int(name.rsplit("-", 1)[1]))
        self.save()
        return proc

    # the state file ---------------------------------------------------------------------
    def save(self) -> None:
        """Write what runs where to ``cluster.json``."""
        state = {
            "database": self.database,
            "database_url": self.database_url,
            "chroma_url": self.chroma_url,
            "pg_data": self.pg_data,
            "uploads_dir": str(self.root / "uploads"),
            "replicas": self.replica_urls(),
            "bootstrap_key_file": str(self.root / "replica-0" / "bootstrap-admin.key"),
            "processes": [
                {"name": p.name, "pid": p.pid, "port": p.port, "log": p.log} for p in self.processes
            ],
        }
        self.state_file.write_text(json.dumps(state, indent=2) + "\n")

    @classmethod
    def load(cls, root: Path) -> Cluster:
        """The cluster ``cluster.json`` describes (started by another process)."""
        state = json.loads((root / "cluster.json").read_text())
        cluster = cls(root=root, database=state["database"])
        cluster.database_url, cluster.chroma_url = state["database_url"], state["chroma_url"]
        cluster.pg_data = state["pg_data"]
        cluster.processes = [Process(**p) for p in state["processes"]]
        return cluster

    # stopping ---------------------------------------------------------------------------
    def stop(self) -> None:
        """Workers first (they give their running jobs back), then replicas, Chroma, the
        database."""
        order = ("worker", "replica", "chroma", "postgres")
        for kind in order:
            for proc in [p for p in self.processes if p.name.startswith(kind)]:
                if kind == "postgres":
                    self._stop_postgres(proc)
                else:
                    proc.terminate()
        self.processes = []
        self.state_file.unlink(missing_ok=True)

    def _stop_postgres(self, proc: Process) -> None:
        binaries = pg_bin()
        if binaries is not None and proc.alive():
            cmd = [str(binaries / "pg_ctl"), "-D", self.pg_data, "-m", "fast", "-w", "stop"]
            _run([*_as_postgres(), *cmd])
        if self.pg_data:
            shutil.rmtree(self.pg_data, ignore_errors=True)

    def status(self) -> list[dict[str, Any]]:
        """Every process with whether it runs."""
        return [
            {"name": p.name, "pid": p.pid, "port": p.port, "alive": p.alive()}
            for p in self.processes
        ]


def _as_postgres() -> list[str]:
    """The prefix that runs a PostgreSQL binary as the unprivileged user when we are root."""
    return ["runuser", "-u", PG_USER, "--"] if os.geteuid() == 0 else []


def _chown(path: Path) -> None:
    if os.geteuid() == 0:
        entry = pwd.getpwnam(PG_USER)
        shutil.chown(path, entry.pw_uid, entry.pw_gid)


def _run(cmd: list[str], *, check_output: str | None = None) -> None:
    """Run a command; with ``check_output``, create the database when psql prints nothing."""
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{out.stdout}{out.stderr}")
    if check_output is not None and out.stdout.strip() != check_output:
        create = [*cmd[: cmd.index("-tAc")], "-c", "CREATE DATABASE overstory"]
        _run(create)


def main(argv: list[str] | None = None) -> int:
    """``start``, ``status`` or ``stop``."""
    parser = argparse.ArgumentParser(prog="python -m scripts.cluster")
    parser.add_argument("action", choices=("start", "status", "stop"))
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--database", choices=("postgres", "sqlite"), default="postgres")
    args = parser.parse_args(argv)
    root = args.dir.resolve()
    if args.action == "start":
        if (root / "cluster.json").is_file():
            print(f"a cluster already runs from {root} (make cluster-stop first)", file=sys.stderr)
            return 1
        cluster = Cluster(root=root, database=args.database).start()
        print(cluster.state_file.read_text(), end="")
        return 0
    if not (root / "cluster.json").is_file():
        print(f"no cluster runs from {root}", file=sys.stderr)
        return 0 if args.action == "stop" else 1
    cluster = Cluster.load(root)
    if args.action == "status":
        print(json.dumps(cluster.status(), indent=2))
        return 0 if all(p["alive"] for p in cluster.status()) else 1
    cluster.stop()
    print(f"stopped the cluster of {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
