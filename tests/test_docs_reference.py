"""The generated reference pages never drift, and the documentation site builds in strict mode."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scripts import docs_reference
from tests.helpers import ROOT


@pytest.mark.parametrize("page", sorted(docs_reference.PAGES), ids=lambda p: p.name)
def test_the_committed_reference_page_is_what_the_script_writes(page: Path) -> None:
    committed = page.read_text(encoding="utf-8")
    assert committed == docs_reference.PAGES[page](), (
        f"{page.relative_to(ROOT)} is out of date: run `make docs`"
    )


def test_the_site_builds_strict(tmp_path: Path) -> None:
    mkdocs = Path(sys.executable).parent / "mkdocs"
    if not mkdocs.exists() and shutil.which("mkdocs") is None:
        pytest.fail("mkdocs is missing: `make install` installs the `docs` extra")
    command = [str(mkdocs) if mkdocs.exists() else "mkdocs", "build", "--strict", "--quiet"]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [*command, "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "site" / "reference" / "settings" / "index.html").is_file()
    assert (tmp_path / "site" / "results" / "mix.json").is_file()
