"""Small helpers shared by tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from indexer.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
OVERSTORY = [sys.executable, "-m", "api.cli"]


def run_cli(*args: str, env: dict[str, str] | None = None, check: bool = True) -> Any:
    """Run ``overstory ARGS… --json`` in a subprocess; return (exit code, parsed stdout)."""
    full_env = {**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})}
    proc = subprocess.run(
        [*OVERSTORY, *args], capture_output=True, text=True, env=full_env, cwd=ROOT, timeout=900
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"exit {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}"
        )
    out = json.loads(proc.stdout) if proc.stdout.strip().startswith(("{", "[")) else proc.stdout
    return proc.returncode, out, proc.stderr


def catalog_env(settings: Settings) -> dict[str, str]:
    """The environment that points a CLI subprocess at the same catalog as ``settings``."""
    return {"OVERSTORY_DATABASE_URL": settings.database_url} if settings.database_url else {}


def walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    """Every node of a ``tree --json`` document, pre-order."""
    out = [node]
    for child in node.get("children", []):
        out.extend(walk(child))
    return out
