"""Walking a folder given to ``ingest``: every file is found once, or reported with the reason.

A symbolic link is followed only while it stays inside the folder: a link to a file or folder
outside it is reported and not read (a link in a manuals folder must not index a system file),
and a link back to a folder being walked (a loop) is reported instead of walked forever.
Hidden files and folders are left out silently, as everywhere in ``ingest``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class FolderFile:
    """A regular file found in the folder, by its path under the folder (``rel``)."""

    path: Path
    rel: str


@dataclass(frozen=True)
class FolderRefusal:
    """An entry of the folder that is not read, with the reason."""

    path: Path
    rel: str
    reason: str


def walk_folder(root: Path) -> Iterator[FolderFile | FolderRefusal]:
    """The folder's files in sorted order (depth first), and the entries refused.

    Yields:
        A :class:`FolderFile` for each regular file inside the folder (through links that stay
        inside it), a :class:`FolderRefusal` for a link leaving the folder, a link loop, a
        broken link, or an entry that cannot be read.
    """
    top = root.resolve()
    yield from _walk(root, "", top, frozenset({top}))


def _walk(folder: Path, prefix: str, top: Path, ancestors: frozenset[Path]) -> Iterator[
    FolderFile | FolderRefusal
]:  # fmt: skip
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        yield FolderRefusal(folder, prefix or ".", f"folder not readable: {exc.strerror or exc}")
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        rel = f"{prefix}{entry.name}"
        target = path
        if entry.is_symlink():
            try:
                target = path.resolve(strict=True)
            except (OSError, RuntimeError):
                yield FolderRefusal(path, rel, "symbolic link to nothing (broken or a loop)")
                continue
            if not target.is_relative_to(top):
                yield FolderRefusal(
                    path, rel, f"symbolic link leaving the folder (to {target}): not followed"
                )
                continue
        if target.is_dir():
            real = target.resolve()
            if real in ancestors:
                yield FolderRefusal(
                    path, rel, "symbolic link loop (to a folder that contains it): not followed"
                )
                continue
            yield from _walk(path, f"{rel}/", top, ancestors | {real})
        elif target.is_file():
            yield FolderFile(path, rel)
        else:
            yield FolderRefusal(path, rel, "not a regular file")
