"""What a one-sentence edit of a real manual costs to re-index, against the full build.

Two real manuals from Debian packages (installed when missing): the NTPsec documentation, an
HTML manual of many pages (``ntpsec-doc``), and the gnuplot 5.4 manual, a PDF of 311 pages
(``gnuplot-doc``). Each is indexed with the default settings (all-MiniLM-L6-v2 encoder,
offline extractive summarizer) in two ways, in one run:

- **service**: ``overstory serve`` on a free 127.0.0.1 port; the manual is uploaded over HTTP
  (the PDF as one document; the HTML manual one page per document, since an upload is one
  file) and the jobs are awaited: the full build. Then one sentence of one page is edited and
  the edited file uploaded to the same, now warm, server: timed from the upload request to the
  job's end.
- **cli**: ``overstory ingest`` in a fresh process (the HTML manual as one document,
  ``--manual``): the full build, then the same edit re-indexed by another fresh process, timed
  as a user would (process start to exit).

Reported: seconds, the ratio of each re-index to its full build (targets: 5 % through the
service, 10 % through the CLI), and each re-index's per-stage seconds from its ingest report
(the service's from the job's report), which say where the remaining fixed cost goes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT
from benchmarks.corpora import install_packages

HTML_PACKAGE, HTML_DIR = "ntpsec-doc", Path("/usr/share/doc/ntpsec-doc/html")
PDF_PACKAGE, PDF_FILE = "gnuplot-doc", Path("/usr/share/doc/gnuplot/gnuplot.pdf")
SERVICE_TARGET = 0.05
CLI_TARGET = 0.10
ADDED = " A client that is refused is answered with a kiss-of-death packet."
_PARAGRAPH = re.compile(rb"<p>([^<]{80,})</p>")


@dataclass
class Manual:
    """A manual to index: its files in a work folder, and how to edit one sentence of it."""

    name: str
    root: Path  # the folder (HTML) or the file (PDF)
    edited_file: Path
    edit: Callable[[bytes], bytes]
    many_pages: bool


def _edit_html(data: bytes) -> bytes:
    """One sentence added at the end of the page's first long paragraph."""
    m = _PARAGRAPH.search(data)
    if m is None:
        raise RuntimeError("no paragraph to edit")
    return data[: m.end() - 4] + ADDED.encode() + data[m.end() - 4 :]


def _edit_pdf(data: bytes) -> bytes:
    """One word of one sentence on a middle page changed: ``the`` becomes ``this``."""
    import io

    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import NameObject, StreamObject

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    page = writer.pages[len(writer.pages) // 2]
    content = page.get_contents()
    assert content is not None
    stream = content.get_data()
    if b")-333(the)-" not in stream:
        raise RuntimeError("no sentence to edit on the middle page")
    stream = stream.replace(b")-333(the)-", b")-333(this)-", 1)
    new = StreamObject()
    new.set_data(stream)
    page[NameObject("/Contents")] = writer._add_object(new)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _manuals(work: Path) -> list[Manual]:
    install_packages({HTML_PACKAGE, PDF_PACKAGE})
    html = work / "ntpsec"
    shutil.copytree(HTML_DIR, html)
    pdf = work / "gnuplot.pdf"
    shutil.copy(PDF_FILE, pdf)
    return [
        Manual("ntpsec (HTML, many pages)", html, html / "access.html", _edit_html, True),
        Manual("gnuplot (PDF)", pdf, pdf, _edit_pdf, False),
    ]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OVERSTORY_")}
    path = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return {
        **env,
        "PYTHONPATH": path,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
    }


def _cli_ingest(manual: Manual, store: Path) -> tuple[float, dict[str, Any]]:
    argv = [sys.executable, "-m", "api.cli", "ingest", str(manual.root), "--store", str(store)]
    if manual.many_pages:
        argv += ["--manual", "--doc-id", manual.root.name]
    started = time.perf_counter()
    proc = subprocess.run(
        [*argv, "--json"], capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=3600
    )
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"ingest exited {proc.returncode}: {proc.stderr[-2000:]}")
    return seconds, json.loads(proc.stdout)


def _files(manual: Manual) -> list[Path]:
    return sorted(manual.root.glob("*.html")) if manual.many_pages else [manual.root]


class _Server:
    """``overstory serve`` on a free loopback port, without keys (loopback only)."""

    def __init__(self, store: Path, log: Path) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        self.url = f"http://127.0.0.1:{port}"
        env = {**_env(), "OVERSTORY_AUTH": "off", "OVERSTORY_MAX_QUEUED_JOBS": "1000"}
        argv = [sys.executable, "-m", "api.cli", "serve", "--host", "127.0.0.1"]
        argv += ["--port", str(port), "--store", str(store), "--no-access-log"]
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env)

    def wait_healthy(self, timeout: float = 300) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"overstory serve exited with {self.proc.returncode}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise TimeoutError("overstory serve did not become healthy")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _upload_and_wait(url: str, files: list[tuple[str, bytes]]) -> list[dict[str, Any]]:
    """Upload ``(doc_id, bytes)`` files and wait until every job has ended."""
    import httpx

    with httpx.Client(base_url=url, timeout=600) as client:
        ids = []
        for doc_id, data in files:
            r = client.post(
                "/v1/documents",
                files={"file": (doc_id.rsplit("/", 1)[-1], data)},
                data={"doc_id": doc_id},
            )
            if r.status_code != 202:
                raise RuntimeError(f"upload of {doc_id}: {r.status_code} {r.text[:500]}")
            ids.append(r.json()["job_id"])
        jobs: dict[str, dict[str, Any]] = {}
        while len(jobs) < len(ids):
            for job_id in ids:
                if job_id not in jobs:
                    job = client.get(f"/v1/jobs/{job_id}").json()
                    if job["status"] in ("done", "failed"):
                        jobs[job_id] = job
            time.sleep(0.05)
    return [jobs[j] for j in ids]


def _service(manual: Manual, work: Path, original: bytes) -> dict[str, Any]:
    store = work / "service-store"
    server = _Server(store, work / "server.log")
    try:
        server.wait_healthy()
        prefix = manual.root.name
        uploads = [(f"{prefix}/{f.name}", f.read_bytes()) for f in _files(manual)]
        started = time.perf_counter()
        jobs = _upload_and_wait(server.url, uploads)
        full = time.perf_counter() - started
        failed = [j["doc_id"] for j in jobs if j["status"] != "done"]
        edited = (f"{prefix}/{manual.edited_file.name}", manual.edit(original))
        started = time.perf_counter()
        (job,) = _upload_and_wait(server.url, [edited])
        revision = time.perf_counter() - started
        if job["status"] != "done":
            raise RuntimeError(f"the revision's job failed: {job.get('error')}")
    finally:
        server.stop()
    report = job["report"]
    return {
        "documents": len(uploads),
        "documents_failed": failed,
        "full_build_s": round(full, 2),
        "revision_s": round(revision, 2),
        "ratio": round(revision / full, 4),
        "target": SERVICE_TARGET,
        "met": revision / full <= SERVICE_TARGET,
        "revision_report_s": report.get("seconds"),
        "revision_stages_s": report.get("stages"),
        "revision_summarizer_calls": report.get("summarizer_calls"),
        "revision_embedded": report.get("embedded"),
    }


def _cli(manual: Manual, work: Path, original: bytes) -> dict[str, Any]:
    store = work / "cli-store"
    full, full_report = _cli_ingest(manual, store)
    manual.edited_file.write_bytes(manual.edit(original))
    try:
        revision, report = _cli_ingest(manual, store)
    finally:
        manual.edited_file.write_bytes(original)
    (doc,) = report["documents"]
    return {
        "documents": 1,
        "passages": doc.get("passages"),
        "nodes": doc.get("nodes"),
        "full_build_s": round(full, 2),
        "full_build_stages_s": full_report.get("stages"),
        "revision_s": round(revision, 2),
        "ratio": round(revision / full, 4),
        "target": CLI_TARGET,
        "met": revision / full <= CLI_TARGET,
        "revision_report_s": report.get("seconds"),
        "revision_stages_s": report.get("stages"),
        "revision_summarizer_calls": report.get("summarizer_calls"),
        "revision_embedded": report.get("embedded"),
        "revision_status": doc.get("status"),
    }


def main() -> dict[str, Any]:
    results: dict[str, Any] = {}
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="overstory-revision-cost-") as tmp:
        work = Path(tmp)
        for manual in _manuals(work):
            folder = work / re.sub(r"\W+", "-", manual.name)
            folder.mkdir()
            original = manual.edited_file.read_bytes()
            results[manual.name] = {
                "edited_file": manual.edited_file.name,
                "service": _service(manual, folder, original),
                "cli": _cli(manual, folder, original),
            }
    return {
        "settings": "defaults: all-MiniLM-L6-v2 encoder, extractive summarizer",
        "edit": "one sentence of one page: a sentence added (HTML), a word changed (PDF)",
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "cpus": os.cpu_count(),
        "manuals": results,
    }


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
