"""The README's five-minute tour runs as written: its curl commands against a real
``overstory serve`` of the fixtures (as ``make serve`` starts it, the key read from the file it
writes), and its CLI commands against a temporary store."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.helpers import OVERSTORY, ROOT, run_cli
from tests.http_support import free_port

README = (ROOT / "README.md").read_text(encoding="utf-8")
TOUR = README.split("\n## Five-minute tour\n", 1)[1].split("\n## ", 1)[0]
CLI = ".venv/bin/overstory "


def _commands() -> list[str]:
    """Every ``$ `` line of the tour's console blocks, in order, without its comment."""
    blocks = re.findall(r"```console\n(.*?)```", TOUR, flags=re.DOTALL)
    lines = [line for block in blocks for line in block.splitlines()]
    return [line[2:].split("  #", 1)[0].strip() for line in lines if line.startswith("$ ")]


def _shell_commands() -> list[str]:
    return [c for c in _commands() if not c.startswith(CLI)]


def _cli_examples() -> list[list[str]]:
    return [shlex.split(c)[1:] for c in _commands() if c.startswith(CLI)]


def test_the_tour_explains_the_key_before_using_it() -> None:
    shell = _shell_commands()
    assert shell[0] == "KEY=$(cat .overstory/bootstrap-admin.key)"
    assert TOUR.index("bootstrap-admin.key") < TOUR.index("$ curl")
    assert all(c.startswith("curl ") and "$KEY" in c for c in shell[1:]), shell


def test_readme_examples_run(tmp_path: Path) -> None:
    examples = _cli_examples()
    assert len(examples) >= 6
    store = str(tmp_path / "store")
    outputs = []
    for args in examples:
        args = [store if a == "/tmp/ovs" else a for a in args]
        code, out, err = run_cli(*args, env={"OVERSTORY_EMBEDDER": "hashing"})
        assert code == 0, (args, err)
        outputs.append(out)
    second = outputs[1]
    assert re.search(r"0 summaries computed", second), second


@pytest.fixture
def make_serve(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """``overstory serve`` as ``make serve`` runs it, on a free port and a temporary store."""
    store, port = tmp_path / "store", free_port()
    args = ["serve", "--host", "127.0.0.1", "--port", str(port), "--store", str(store)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OVERSTORY_EMBEDDER": "hashing"}
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(
        [*OVERSTORY, *args, "--index-fixtures", "fixtures"], cwd=ROOT, env=env, stderr=log
    )
    try:
        deadline = time.monotonic() + 300
        while True:
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "serve did not start"
            time.sleep(0.5)
        yield store, port
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        log.close()


def test_the_tour_asks_the_served_fixtures(make_serve: tuple[Path, int]) -> None:
    store, port = make_serve
    outputs = []
    for command in _shell_commands():
        command = command.replace(".overstory/", f"{store}/").replace(
            "127.0.0.1:8000", f"127.0.0.1:{port}"
        )
        script = f"set -eu; KEY=$(cat {store}/bootstrap-admin.key); {command}"
        proc = subprocess.run(
            ["bash", "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120
        )
        assert proc.returncode == 0, (command, proc.stderr)
        outputs.append(proc.stdout)
    documents, passage_query, summary_query = (json.loads(out) for out in outputs[1:4])
    assert len(documents["documents"]) >= 4, documents
    assert passage_query["results"] and len(passage_query["results"]) <= 3
    assert passage_query["results"][0]["label"] == "quote", passage_query["results"][0]
    kinds = {result["kind"] for result in summary_query["results"]}
    assert kinds == {"summary"}, summary_query
    assert all(r["label"].startswith("summary of") for r in summary_query["results"])


def test_the_tour_names_the_cli_in_the_virtual_environment() -> None:
    lines = [c for c in _commands() if "overstory " in c and not c.startswith("curl")]
    assert lines and all(line.startswith(CLI) for line in lines), lines
