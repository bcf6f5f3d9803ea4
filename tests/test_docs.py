"""The README stays true: every setting and every CLI command is documented in it."""

from __future__ import annotations

import re

from api.cli import main
from indexer.settings import Settings
from tests.helpers import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_opens_with_the_two_setup_commands() -> None:
    head = README[:1500]
    assert "make serve" in head and "make test" in head
    assert head.index("make serve") < head.index("make test")


def test_every_setting_is_documented() -> None:
    table = README.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    rows = set(re.findall(r"^\| `([a-z_]+)` \|", table, flags=re.MULTILINE))
    missing = sorted(set(Settings.model_fields) - rows)
    assert not missing, f"settings missing from the README table: {missing}"
    unknown = sorted(rows - set(Settings.model_fields))
    assert not unknown, f"README documents settings that do not exist: {unknown}"


def test_every_setting_has_an_env_name_and_description() -> None:
    for name, field in Settings.model_fields.items():
        assert field.description, name
        assert f"OVERSTORY_{name.upper()}" in README, name


def test_every_command_is_documented() -> None:
    assert len(main.commands) >= 12
    for name in main.commands:
        assert f"overstory {name}" in README, name
