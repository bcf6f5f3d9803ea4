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
from indexer.manual import ManualPage, is_manual_file, manual_revision, parse_manual
from indexer.manual_site import SiteReading, is_html_name, read_site
from indexer.parsers.base import ParsedDocument
from indexer.parsers.registry import supported_suffixes
from indexer.reuse import Reuse
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
    the paths together are one manual (``indexer.manual``): a folder of HTML pages (or a list
    of them) is read the way its generator wrote it (:mod:`indexer.manual_site`), every page
    read or reported in ``skipped``; an HTML file given alone is the manual its links reach;
    anything else goes in the order given (a folder's files sorted). Its ``doc_id`` is
    ``doc_id`` or the first path's name.

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
    yield PendingSource(
        name, paths[0], lambda: _manual(paths, settings, doc_id=name, skipped=skipped)
    )


def _file_loader(settings: Settings, path: Path, doc_id: str) -> Callable[[], Source]:
    def load() -> Source:
        data = read_file(settings, path, source=doc_id)
        return file_source(settings, data, doc_id=doc_id, source=doc_id, filename=path.name)

    return load


def read_html_manual(
    paths: list[Path], read: Callable[[Path], bytes] = Path.read_bytes
) -> tuple[SiteReading, list[tuple[str, str]]] | None:
    """How ``ingest --manual PATHS`` reads these paths as an HTML manual: the reading and the
    folder's entries refused before it (links leaving the folder, other documents); None when
    the paths are no HTML manual."""
    site = _html_site(paths)
    if site is None:
        return None
    files, aliases, start, refused, whole = site
    return read_site(files, read, start=start, aliases=aliases, report_unreached=whole), refused


def _manual(
    paths: list[Path],
    settings: Settings,
    *,
    doc_id: str,
    skipped: list[dict[str, Any]] | None = None,
) -> Source:
    def read(path: Path) -> bytes:
        return read_file(settings, path, source=f"{doc_id}: {path.name}")

    found = read_html_manual(paths, read)
    if found is not None:
        reading, refused = found
        folder = paths[0] if paths[0].is_dir() else paths[0].parent
        for name, reason in refused + reading.refused:
            _report(skipped, f"{doc_id}: {name}", folder / name, reason)
        pages = [ManualPage(p.name, p.data, p.parent, title=p.title) for p in reading.pages]
        furniture = reading.furniture
        title = reading.title
        front = True
        sections = reading.start_sections
        chapters_from = reading.chapters_from
    else:
        pages = [
            ManualPage(name, read(path)) for given in paths for path, name in _manual_files(given)
        ]
        furniture = None
        title = paths[0].name if len(paths) == 1 else doc_id
        front = False
        sections = True
        chapters_from = None
    if not pages:
        raise NotFoundError(f"{doc_id}: no files of a supported type to make a manual of")
    return Source(
        doc_id,
        doc_id,
        manual_revision(pages),
        lambda: _parse_reusing(
            settings,
            pages,
            title=title,
            front=front,
            front_sections=sections,
            chapters_from=chapters_from,
            furniture=furniture,
        ),
    )


def _parse_reusing(settings: Settings, pages: list[ManualPage], **options: Any) -> ParsedDocument:
    """:func:`parse_manual`, the pages parsed before (same bytes) read back from the store."""
    reuse = Reuse.for_store(settings.store)
    try:
        return parse_manual(pages, reuse=reuse, **options)
    finally:
        reuse.cache.close()


_START_STEMS = ("index.html", "index.htm", "index.xhtml")
_START_PREFIX = "index."


def _html_site(
    paths: list[Path],
) -> tuple[dict[str, Path], dict[str, str], list[str], list[tuple[str, str]], bool] | None:
    """The HTML pages to read as one site: files by name, aliases, start page, entries
    refused, and whether every page must be read or reported (a folder or a list given).

    None when the paths are no HTML manual (a folder of Markdown chapters, say).
    """
    if len(paths) == 1 and paths[0].is_dir():
        files, aliases, refused = _folder_pages(paths[0])
        if not files:
            return None
        others = [r for r in refused if r[1].startswith(_NOT_A_PAGE)]
        starts = [n for n in _START_STEMS if n in files or n in aliases]
        starts += sorted(n for n in files if "/" not in n and n.startswith(_START_PREFIX))
        if not starts and others:
            return None  # no HTML start page, and other documents: a folder of files
        return files, aliases, starts or sorted(files)[:1], refused, True
    if all(p.is_file() and is_html_name(p.name) for p in paths):
        if len(paths) == 1:
            folder = paths[0].parent
            files, aliases, _ = _folder_pages(folder)
            name = paths[0].name
            return files, aliases, [aliases.get(name, name)], [], False
        files = {p.name: p for p in paths}
        starts = [n for n in _START_STEMS if n in files]
        return files, {}, starts or [paths[0].name], [], True
    return None


_NOT_A_PAGE = "not a page of the HTML manual"
# A site's pictures, styles, scripts and fonts: the pages' resources, never text of their own.
_RESOURCES = frozenset(
    {".png", ".gif", ".jpg", ".jpeg", ".svg", ".ico", ".webp", ".bmp", ".css", ".js", ".map"}
    | {".woff", ".woff2", ".ttf", ".eot", ".otf", ".md5", ".inv", ".json", ".zip", ".xml"}
)


def _folder_pages(
    folder: Path,
) -> tuple[dict[str, Path], dict[str, str], list[tuple[str, str]]]:
    """A folder's HTML pages by name, other names of them (links), and what is refused."""
    files: dict[str, Path] = {}
    aliases: dict[str, str] = {}
    refused: list[tuple[str, str]] = []
    real: dict[Path, str] = {}
    for found in walk_folder(folder):
        suffix = _suffix(found.path)
        if isinstance(found, FolderRefusal):
            if suffix.removesuffix(".gz") not in _RESOURCES:
                refused.append((found.rel, found.reason))
            continue
        if not is_html_name(found.rel):
            if suffix.removesuffix(".gz") not in _RESOURCES:
                refused.append((found.rel, f"{_NOT_A_PAGE} ({suffix or 'no suffix'})"))
            continue
        target = found.path.resolve()
        if target in real:
            aliases[found.rel] = real[target]
            continue
        real[target] = found.rel
        files[found.rel] = found.path
    return files, aliases, refused


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
