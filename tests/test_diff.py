"""Comparing revisions: added, removed, moved and changed sections, from the CLI."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import run_cli

HASHING = {"OVERSTORY_EMBEDDER": "hashing"}

V1 = """# Widget Manual

## 1 Setup

Mount the widget on a flat surface.

### 1.1 Power

Connect the 24 V supply only when the switch is off.

## 2 Care

Clean the widget weekly.

### 2.1 Storage

Store below 40 °C.

## 3 Legacy

The old bracket is no longer supplied.
"""

V2 = """# Widget Manual

## 1 Setup

Mount the widget on a flat surface.

### 1.1 Power

Connect the 24 V supply only when the switch is off and the fuse is fitted.

## 2 Care

Clean the widget weekly.

## 4 Recycling

Return the widget to the dealer.

### 2.1 Storage

Store below 40 °C.
"""


def test_diff_lists_added_removed_moved_and_changed(tmp_path: Path) -> None:
    doc = tmp_path / "widget.md"
    store = str(tmp_path / "store")
    doc.write_text(V1)
    run_cli("ingest", str(doc), "--store", store, "--json", env=HASHING)
    doc.write_text(V2)
    run_cli("ingest", str(doc), "--store", store, "--json", env=HASHING)
    _, result, _ = run_cli("diff", doc.name, "--store", store, "--json", env=HASHING)
    by_kind: dict[str, list[list[str]]] = {}
    for c in result["changes"]:
        by_kind.setdefault(c["change"], []).append(c["heading_path"][1:])
    assert by_kind["changed"] == [["1 Setup", "1.1 Power"]]
    assert ["4 Recycling"] in by_kind["added"]
    assert ["3 Legacy"] in by_kind["removed"]
    assert by_kind["moved"] == [["4 Recycling", "2.1 Storage"]]
    changed = next(c for c in result["changes"] if c["change"] == "changed")
    assert (
        "+Connect the 24 V supply only when the switch is off and the fuse is fitted."
        in (changed["diff"])
    )
    assert result["from"] != result["to"]

    code, err, stderr = run_cli(
        "diff", doc.name, "--from", "ffff", "--store", store, "--json", env=HASHING, check=False
    )
    assert code == 1 and err["error"]["code"] == "not_found"
