"""The CLI imports what the command it runs needs: ``--version``, ``--help`` and ``docs`` load no
model, no clustering, no vector store and no HTTP service; ``query`` loads the vector store and
the encoder but no clustering, no torch and no HTTP service. Checked on ``sys.modules`` in a
fresh interpreter (never on time: the machines are shared)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import click
import click.testing
import pytest

from api.cli import COMMANDS, main
from indexer.index import Index
from indexer.settings import Settings
from tests.helpers import ROOT

# What no command that only reads the catalog may import.
HEAVY = (
    "torch",
    "sklearn",
    "scipy",
    "numpy",
    "chromadb",
    "onnxruntime",
    "tokenizers",
    "fastapi",
    "uvicorn",
    "pypdf",
    "lxml",
    "bm25s",
    "indexer.index",
    "indexer.clustering",
    "retriever",
    "api.service.wiring",
)
# What ``query`` needs none of (it needs the vector store, numpy and the lexical index, whose
# postings it reads with numpy alone).
NOT_FOR_QUERY = (
    "torch",
    "sklearn",
    "scipy",
    "bm25s",
    "fastapi",
    "uvicorn",
    "pypdf",
    "lxml",
    "indexer.clustering",
    "api.service.wiring",
)


@pytest.fixture(scope="module")
def hashing_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding one fixture manual, made with the hashing embedder."""
    store = tmp_path_factory.mktemp("lazy") / "store"
    index = Index(Settings(store=store, embedder="hashing"))
    report = index.ingest_paths([ROOT / "fixtures" / "pump-x200.md"])
    assert not report.errors
    index.close()
    return store


def _imported_after(runs: list[list[str]], watch: tuple[str, ...], env: dict[str, str]) -> dict:
    """Run each argument list through the CLI (click's runner) in a fresh interpreter; return
    the exit codes and which of ``watch`` ended up in ``sys.modules``."""
    script = textwrap.dedent(
        f"""
        import json, sys
        from click.testing import CliRunner
        import api.cli
        codes = [CliRunner().invoke(api.cli.main, args).exit_code for args in {runs!r}]
        loaded = [m for m in {list(watch)!r} if m in sys.modules]
        print(json.dumps({{"codes": codes, "loaded": loaded}}))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "HF_HUB_OFFLINE": "1", **env},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_each_listed_help_is_the_commands_own() -> None:
    for name, lazy in COMMANDS.items():
        command = lazy.load()
        assert command.name == name, name
        assert command.get_short_help_str(limit=10_000) == lazy.short_help, name


def test_help_lists_every_command_and_imports_none() -> None:
    ctx = click.Context(main)
    assert main.list_commands(ctx) == sorted(COMMANDS)
    out = _imported_after([["--help"], ["--version"]], ("api.commands.query", *HEAVY), env={})
    assert out == {"codes": [0, 0], "loaded": []}
    help_text = click.testing.CliRunner().invoke(main, ["--help"]).output
    for name in COMMANDS:
        assert f"  {name} " in help_text, name


def test_docs_reads_the_catalog_without_the_heavy_modules(hashing_store: Path) -> None:
    runs = [["docs", "--help"], ["docs", "--json", "--store", str(hashing_store)]]
    out = _imported_after(runs, HEAVY, env={})
    assert out == {"codes": [0, 0], "loaded": []}


def test_query_loads_no_clustering_torch_or_http_service(hashing_store: Path) -> None:
    runs = [["query", "impeller clearance", "--store", str(hashing_store)]]
    out = _imported_after(runs, NOT_FOR_QUERY, env={"OVERSTORY_EMBEDDER": "hashing"})
    assert out == {"codes": [0], "loaded": []}


def test_docs_skips_the_settings_when_only_the_store_is_configured(
    hashing_store: Path, tmp_path: Path
) -> None:
    watch = ("pydantic", "pydantic_settings", "indexer.settings")
    runs = [["docs", "--json", "--store", str(hashing_store)], ["docs", "--json"]]
    out = _imported_after(runs, watch, env={"OVERSTORY_STORE": str(hashing_store)})
    assert out == {"codes": [0, 0], "loaded": []}
    # Any other setting, or a config file, and the settings are read (and validated) as always.
    out = _imported_after(runs[1:], watch, env={"OVERSTORY_MAX_K": "50"})
    assert out["loaded"] == list(watch)
    config = tmp_path / "overstory.toml"
    config.write_text(f'store = "{hashing_store}"\n', encoding="utf-8")
    bad = _imported_after(
        runs[1:], (), env={"OVERSTORY_CONFIG": str(config), "OVERSTORY_MAX_K": "x"}
    )
    assert bad["codes"] == [1]


def test_docs_lists_the_same_documents_whichever_way_the_store_is_named(
    hashing_store: Path, tmp_path: Path
) -> None:
    config = tmp_path / "overstory.toml"
    config.write_text(f'store = "{hashing_store}"\n', encoding="utf-8")
    runner = click.testing.CliRunner()
    outputs = []
    for args, env in (
        (["docs", "--json", "--store", str(hashing_store)], {}),
        (["docs", "--json"], {"OVERSTORY_STORE": str(hashing_store)}),
        (["docs", "--json"], {"OVERSTORY_CONFIG": str(config)}),
    ):
        result = runner.invoke(main, args, env=env)
        assert result.exit_code == 0, result.output
        outputs.append(json.loads(result.output))
    assert outputs[0] == outputs[1] == outputs[2]
    assert [d["doc_id"] for d in outputs[0]["documents"]] == ["pump-x200.md"]
    missing = runner.invoke(main, ["docs", "--store", str(tmp_path / "none")])
    assert missing.exit_code == 1 and "no Overstory store" in missing.output
