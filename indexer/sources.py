"""What an ``ingest`` of paths reads: one document per file, or one manual of many files.

:func:`discover` lists a folder's files with their ``doc_id``; :func:`path_sources` turns the
given paths into documents to ingest, each loaded only when its turn comes (so one unreadable
file is reported and the others still ingested).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.doc_ids import normalize_doc_id
from indexer.errors import (
    InvalidRequestError,
    NotFoundError,
    OverstoryError,
    UnreadableFileError,
)
from indexer.folders import FolderRefusal, walk_folder
from indexer.ingest import Source, file_source, read_file
from indexer.manual import (
    ManualPage,
    is_manual_file,
    manual_revision,
    parse_manual,
    reading_order,
    start_page,
)
from indexer.parsers import supported_suffixes
from indexer.settings import Settings


@dataclass(frozen=True)
class PendingSource:
    """A document to ingest, not read yet: ``load()`` reads it (and may raise)."""

    doc_id: str
    path: Path
    load: Callable[[], Source]


def path_sources(
    paths: list[Path],
    settings: Settings,
    *,
    manual: bool = False,
    doc_id: str | None = None,
    skipped: list[dict[str, Any]] | None = None,
) -> Iterator[PendingSource]:
    """The documents an ingest of ``paths`` makes.

    Without ``manual`` every supported file is a document (see :func:`discover`). With it, all
    the paths together are one manual (``indexer.manual``): a folder whose ``index.html`` starts
    a ``rel="next"`` chain is read along it, an HTML file given alone likewise, anything else in
    the order given (a folder's files sorted). Its ``doc_id`` is ``doc_id`` or the first path's
    name.

    Raises:
        NotFoundError: A path does not exist.
    """
    if not manual:
        for path, found in discover(paths, skipped):
            yield PendingSource(found, path, _file_loader(settings, path, found))
        return
    for given in paths:
        if not given.exists():
            raise NotFoundError(f"{given}: no such file or folder")
    name = normalize_doc_id(doc_id or (paths[0].name if paths else "manual"))
    yield PendingSource(name, paths[0], lambda: _manual(paths, settings, doc_id=name))


def _file_loader(settings: Settings, path: Path, doc_id: str) -> Callable[[], Source]:
    def load() -> Source:
        data = read_file(settings, path, source=doc_id)
        return file_source(settings, data, doc_id=doc_id, source=doc_id, filename=path.name)

    return load


def _manual(paths: list[Path], settings: Settings, *, doc_id: str) -> Source:
    def read(path: Path) -> bytes:
        return read_file(settings, path, source=f"{doc_id}: {path.name}")

    front = start_page(paths[0]) if len(paths) == 1 and paths[0].is_dir() else None
    if front is None and len(paths) == 1 and paths[0].suffix.lower() in (".html", ".htm"):
        front = paths[0]
    if front is not None:
        pages = reading_order(front, read)
        title = None
    else:
        pages = [
            ManualPage(name, read(path)) for given in paths for path, name in _manual_files(given)
        ]
        title = paths[0].name if len(paths) == 1 else doc_id
    if not pages:
        raise NotFoundError(f"{doc_id}: no files of a supported type to make a manual of")
    return Source(
        doc_id,
        doc_id,
        manual_revision(pages),
        lambda: parse_manual(pages, title=title, front=front is not None),
    )


def _manual_files(given: Path) -> Iterator[tuple[Path, str]]:
    if not given.is_dir():
        yield given, given.name
        return
    for path in sorted(given.rglob("*")):
        rel = path.relative_to(given)
        hidden = any(p.startswith(".") for p in rel.parts)
        if path.is_file() and not hidden and is_manual_file(path):
            yield path, rel.as_posix()


def discover(
    paths: list[Path], skipped: list[dict[str, Any]] | None = None
) -> Iterator[tuple[Path, str]]:
    """Files to ingest with their ``doc_id``.

    A folder contributes every supported file below it, its ``doc_id`` the path relative to the
    folder; a file given directly gets its name (relative to its own folder): a doc_id is never
    a host path. Hidden files and folders are left out. A folder's other entries are appended
    to ``skipped`` with the reason, and the walk goes on: a file of a type no parser reads, a
    name refused as a doc_id (a control character, a drive letter), a symbolic link leaving the
    folder or looping (see :mod:`indexer.folders`).

    Raises:
        NotFoundError: A given path does not exist.
        InvalidRequestError: The name of a file given directly is refused as a doc_id.
    """
    suffixes = supported_suffixes()
    for given in paths:
        if given.is_dir():
            for found in walk_folder(given):
                if isinstance(found, FolderRefusal):
                    _report(skipped, found.rel, found.path, found.reason)
                elif _suffix(found.path) not in suffixes:
                    _report(skipped, found.rel, found.path, _unsupported(found.path, suffixes))
                else:
                    try:
                        doc_id = normalize_doc_id(found.rel)
                    except InvalidRequestError as exc:
                        _report(skipped, found.rel, found.path, f"name refused: {exc.message}")
                        continue
                    yield found.path, doc_id
        elif given.exists():
            yield given, normalize_doc_id(given.name)
        else:
            raise NotFoundError(f"{given}: no such file or folder")


def _report(skipped: list[dict[str, Any]] | None, rel: str, path: Path, reason: str) -> None:
    if skipped is not None:
        skipped.append({"doc_id": rel, "source": str(path), "reason": reason})


def _unsupported(path: Path, suffixes: frozenset[str]) -> str:
    shown = _suffix(path) or "(none)"
    supported = ", ".join(sorted(s for s in suffixes if not s.endswith(".gz")))
    return f"unsupported file type {shown!r} (supported: {supported}, and .gz)"


def file_error(doc_id: str, path: Path, exc: OverstoryError | OSError) -> dict[str, Any]:
    """The report entry of a file that could not be ingested (or planned)."""
    if not isinstance(exc, OverstoryError):
        exc = UnreadableFileError(f"{path}: {exc.strerror or exc}")
    return {"doc_id": doc_id, "source": str(path), **exc.to_json()}


def _suffix(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(".gz"):
        return "".join(path.suffixes[-2:]).lower()
    return path.suffix.lower()
