"""The store folder of a command that only reads the catalog, found without loading Settings.

Validating every setting (pydantic) costs more than listing the documents. When nothing but the
store is configured (no config file, no ``OVERSTORY_*`` variable but ``OVERSTORY_STORE`` and
``OVERSTORY_CONFIG``), :class:`indexer.settings.Settings` would name this folder and a SQLite
catalog in it, so a caller may open that directly; otherwise it loads the settings.
"""

from __future__ import annotations

import os
from pathlib import Path

_OWN = frozenset({"OVERSTORY_STORE", "OVERSTORY_CONFIG"})


def config_file() -> Path:
    """The TOML settings file: ``OVERSTORY_CONFIG``, default ``./overstory.toml``."""
    return Path(os.environ.get("OVERSTORY_CONFIG", "overstory.toml"))


def plain_store(store: Path | None) -> Path | None:
    """The store folder when only the store is configured (``store``: the command's option),
    else None: the settings must be loaded."""
    if config_file().is_file():
        return None
    named = {k.upper(): v for k, v in os.environ.items() if k.upper().startswith("OVERSTORY_")}
    if set(named) - _OWN:
        return None
    if store is not None:
        return store
    env = named.get("OVERSTORY_STORE")
    if env is None:
        return Path(".overstory")
    return Path(env) if env.strip() else None
