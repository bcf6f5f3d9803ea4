"""Real manuals from Debian documentation packages, installed and indexed at benchmark time.

Nothing of their text is in the repository: :data:`REALDOCS` names each document's package and
installed path; :func:`realdocs_folder` installs missing packages (``apt-get``, as root) and
copies the files under their ``doc_id`` into a cache folder; :func:`indexed_store` ingests a
folder once (real MiniLM embeddings, extractive summaries) and reuses the store while the files
and the code's ingest-relevant settings are unchanged. The cache lives in ``.bench-cache/``
(ignored by git; safe to delete).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import FIXTURES, ROOT

CACHE = Path(os.environ.get("OVERSTORY_BENCH_CACHE", ROOT / ".bench-cache"))
QUESTIONS = ROOT / "benchmarks" / "questions" / "realdocs"


@dataclass(frozen=True)
class RealDoc:
    """One document: its doc_id, the package that installs it and where."""

    doc_id: str
    package: str
    path: str
    gunzip: bool = False  # stored as .gz by Debian, read as plain text here


REALDOCS: tuple[RealDoc, ...] = (
    RealDoc("bash/bashref.html", "bash-doc", "/usr/share/doc/bash/bashref.html"),
    RealDoc("bash/COMPAT.txt", "bash-doc", "/usr/share/doc/bash/COMPAT.gz", gunzip=True),
    RealDoc("bash/POSIX.txt", "bash-doc", "/usr/share/doc/bash/POSIX.gz", gunzip=True),
    RealDoc("haproxy/intro.html", "haproxy-doc", "/usr/share/doc/haproxy/html/intro.html"),
    RealDoc(
        "haproxy/management.html", "haproxy-doc", "/usr/share/doc/haproxy/html/management.html"
    ),
    RealDoc("dpkg/triggers.txt", "dpkg-dev", "/usr/share/doc/dpkg/spec/triggers.txt"),
    RealDoc("libtasn1/libtasn1.pdf", "libtasn1-doc", "/usr/share/doc/libtasn1-doc/libtasn1.pdf"),
    RealDoc("bzip2/manual.pdf.gz", "bzip2-doc", "/usr/share/doc/bzip2/manual.pdf.gz"),
    RealDoc(
        "libjpeg/structure.txt",
        "libjpeg-dev",
        "/usr/share/doc/libjpeg-dev/structure.txt.gz",
        gunzip=True,
    ),
    *(
        RealDoc(
            f"debian-reference/ch0{n}.en.html",
            "debian-reference-en",
            f"/usr/share/debian-reference/ch0{n}.en.html",
        )
        for n in (3, 4, 5, 8)
    ),
    *(
        RealDoc(
            f"bind9/chapter{n}.html", "bind9-doc", f"/usr/share/doc/bind9-doc/arm/chapter{n}.html"
        )
        for n in (3, 5, 7, 9)
    ),
    *(
        RealDoc(f"docker/{name}.md.gz", "docker-doc", f"/usr/share/doc/docker-doc/{path}.md.gz")
        for name, path in (
            ("builder", "reference/builder"),
            ("run", "reference/run"),
            ("dockerd", "reference/commandline/dockerd"),
            ("deprecated", "deprecated"),
            ("glossary", "reference/glossary"),
            ("plugins_authorization", "extend/plugins_authorization"),
        )
    ),
)


class CorpusUnavailable(RuntimeError):
    """A package is missing and cannot be installed here (not root, no package index)."""


def install_packages(packages: set[str]) -> None:
    """Install the Debian packages that are not installed yet.

    Raises:
        CorpusUnavailable: A package is missing and this process cannot install it.
    """
    missing = sorted(p for p in packages if not _installed(p))
    if not missing:
        return
    if os.geteuid() != 0:
        raise CorpusUnavailable(
            f"missing Debian packages {missing}: run `apt-get install {' '.join(missing)}` as root"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True, env=env)


def _installed(package: str) -> bool:
    out = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True
    )
    return out.returncode == 0 and "install ok installed" in out.stdout


def realdocs_folder() -> Path:
    """The real manuals under their doc_ids, installed and copied on first use."""
    install_packages({d.package for d in REALDOCS})
    folder = CACHE / "realdocs" / "docs"
    for doc in REALDOCS:
        target = folder / doc.doc_id
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if doc.gunzip:
            target.write_bytes(gzip.decompress(Path(doc.path).read_bytes()))
        else:
            shutil.copyfile(doc.path, target)
    return folder


def fixtures_folder() -> Path:
    """The sample manuals of the repository (their questions: ``fixtures/questions.jsonl``)."""
    return FIXTURES


def indexed_store(name: str, folder: Path) -> Path:
    """A store holding ``folder`` ingested with the default settings (built once, reused)."""
    from indexer.index import Index
    from indexer.settings import Settings

    store = CACHE / name / "store"
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix != ".jsonl")
    stamp = json.dumps(
        {
            "files": [(str(p.relative_to(folder)), p.stat().st_size) for p in files],
            "indexer": _indexer_fingerprint(),
        }
    )
    mark = store / "bench-stamp.json"
    if mark.exists() and mark.read_text() == stamp:
        return store
    # Built afresh: an unchanged file is skipped by its content hash, so ingesting into the old
    # store would keep what the previous code made of it.
    shutil.rmtree(store, ignore_errors=True)
    index = Index(Settings(store=store))
    report = index.ingest_paths([folder])
    if report.errors:
        raise RuntimeError(f"ingesting {folder} failed: {report.errors}")
    mark.write_text(stamp)
    return store


def _indexer_fingerprint() -> str:
    """A hash of the indexer's sources: a parser or summarizer change makes the store stale."""
    from indexer.hashing import hash_bytes

    sources = sorted((ROOT / "indexer").rglob("*.py"))
    return hash_bytes(b"".join(p.read_bytes() for p in sources))
