"""The README and the documentation site stay true: the README opens with the two set-up commands
and its where table names real paths; every setting is in the settings reference with its
environment name; every CLI command is in the command reference and explained on a hand-written
page of the site."""

from __future__ import annotations

import re

import click

from api.cli import main
from indexer.settings import Settings
from tests.helpers import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
SETTINGS_PAGE = (DOCS / "reference" / "settings.md").read_text(encoding="utf-8")
CLI_PAGE = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")


def _written_pages() -> str:
    """The hand-written pages of the site (not the generated reference, not the results)."""
    pages = [
        p
        for p in sorted(DOCS.rglob("*.md"))
        if "results" not in p.relative_to(DOCS).parts
        and p.relative_to(DOCS).as_posix() not in {"reference/settings.md", "reference/cli.md"}
    ]
    return "\n".join(p.read_text(encoding="utf-8") for p in pages)


def test_readme_opens_with_the_two_setup_commands() -> None:
    head = README[:1500]
    assert "make serve" in head and "make test" in head
    assert head.index("make serve") < head.index("make test")


def test_readme_is_short() -> None:
    assert len(README.splitlines()) <= 250


def test_every_setting_is_documented() -> None:
    rows = set(re.findall(r"^\| `([a-z_]+)` \|", SETTINGS_PAGE, flags=re.MULTILINE))
    missing = sorted(set(Settings.model_fields) - rows)
    assert not missing, f"settings missing from docs/reference/settings.md: {missing}"
    unknown = sorted(rows - set(Settings.model_fields))
    assert not unknown, f"the settings page documents settings that do not exist: {unknown}"


def test_every_setting_has_an_env_name_and_description() -> None:
    for name, field in Settings.model_fields.items():
        assert field.description, name
        assert f"OVERSTORY_{name.upper()}" in SETTINGS_PAGE, name


def test_every_command_is_documented() -> None:
    names = main.list_commands(click.Context(main))
    assert len(names) >= 12
    written = _written_pages()
    for name in names:
        assert f"## `overstory {name}`" in CLI_PAGE, name
        assert f"overstory {name}" in written, f"no hand-written page explains `overstory {name}`"


def _where_cells() -> list[str]:
    """The ``where`` cell of every row of the table under "## The flow"."""
    flow = README.split("\n## The flow\n", 1)[1].split("\n## ", 1)[0]
    table = flow.split("\n| step | where |\n", 1)[1].split("\n\n", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("|") and "---" not in line]
    return [row.strip().strip("|").rsplit("|", 1)[1] for row in rows]


def test_every_path_in_the_where_table_exists() -> None:
    cells = _where_cells()
    assert len(cells) >= 10
    paths = [p for cell in cells for p in re.findall(r"`([^`]+)`", cell)]
    assert all(re.findall(r"`[^`]+`", cell) for cell in cells), "a row names no path"
    missing = [
        p for p in paths if not ((ROOT / p).is_dir() if p.endswith("/") else (ROOT / p).is_file())
    ]
    assert not missing, f"the README's where table names paths that do not exist: {missing}"
