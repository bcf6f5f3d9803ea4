"""The README's CLI examples run as written (against a temporary store)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from tests.helpers import ROOT, run_cli

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _examples() -> list[list[str]]:
    block = README.split("## Quick tour (CLI)", 1)[1].split("```console", 1)[1].split("```", 1)[0]
    commands = []
    for line in block.splitlines():
        if line.startswith("$ overstory "):
            command = line[2:].split("  #", 1)[0]
            commands.append(shlex.split(command)[1:])
    return commands


def test_readme_examples_run(tmp_path: Path) -> None:
    examples = _examples()
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
