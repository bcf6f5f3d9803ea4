"""What the real ``overstory`` command says when something is wrong: one clear line, exit 1."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from tests.helpers import OVERSTORY, ROOT, run_cli
from tests.http_support import BIN, ServerProcess, free_port
from tests.pdfgen import build_pdf

HASHING = {"OVERSTORY_EMBEDDER": "hashing"}
MANUAL = "# Pump\n\n## Setup\n\nBolt the pump to a level floor.\n\n## Care\n\nClean the filter.\n"


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "manuals"
    folder.mkdir()
    (folder / "pump.md").write_text(MANUAL)
    return folder


def _one_line_error(err: str, *needles: str) -> None:
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], lines[0]


def _encrypted_pdf(tmp_path: Path, *, user_password: str) -> bytes:
    plain = tmp_path / "plain.pdf"
    build_pdf(MANUAL, plain)
    writer = PdfWriter(clone_from=PdfReader(plain))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_an_encrypted_pdf_says_it_needs_a_password(tmp_path: Path) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    (folder / "locked.pdf").write_bytes(_encrypted_pdf(tmp_path, user_password="secret"))
    # Owner-password-only AES encryption opens with the empty user password.
    (folder / "restricted.pdf").write_bytes(_encrypted_pdf(tmp_path, user_password=""))
    code, out, err = run_cli(
        "ingest", str(folder), "--store", str(tmp_path / "s"), "--json", env=HASHING, check=False
    )
    assert code == 1
    (error,) = out["errors"]
    assert error["doc_id"] == "locked.pdf"
    assert error["code"] == "unreadable"
    assert "encrypted" in error["message"] and "password" in error["message"]
    assert "cryptography" not in error["message"]
    assert [d["doc_id"] for d in out["documents"]] == ["restricted.pdf"]


def test_folder_ingest_reports_every_skipped_file(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "notes.docx").write_bytes(b"PK\x03\x04")
    (folder / "sub").mkdir()
    (folder / "sub" / "README").write_text("no extension")
    (folder / ".hidden.docx").write_bytes(b"ignored")
    store = str(tmp_path / "s")
    code, out, err = run_cli("ingest", str(folder), "--store", store, "--json", env=HASHING)
    assert code == 0
    assert [d["doc_id"] for d in out["documents"]] == ["pump.md"]
    skipped = {s["doc_id"]: s["reason"] for s in out["skipped"]}
    assert set(skipped) == {"notes.docx", "sub/README"}
    assert "'.docx'" in skipped["notes.docx"] and "unsupported" in skipped["notes.docx"]
    assert "skipped" in err and "notes.docx" in err and "sub/README" in err
    (folder / "more.rtf").write_text("{\\rtf1}")
    code, out, err = run_cli("ingest", str(folder), "--store", store, env=HASHING)
    assert code == 0
    assert "skipped" in err and "more.rtf" in err and "unsupported file type '.rtf'" in err


def test_eval_on_an_empty_store_is_an_error(tmp_path: Path) -> None:
    store = tmp_path / "s"
    empty = tmp_path / "empty"
    empty.mkdir()
    run_cli("ingest", str(empty), "--store", str(store), env=HASHING)
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        '{"id": "q1", "question": "How is the pump fixed?", "kind": "specific",'
        ' "gold": {"source": "pump.md", "heading_path": ["Pump", "Setup"], "evidence": "Bolt"}}\n'
    )
    code, out, err = run_cli(
        "eval", str(questions), "--store", str(store), env=HASHING, check=False
    )
    assert code == 1
    _one_line_error(err, "nothing is indexed")


@pytest.mark.parametrize(
    "args",
    [
        ["query", "pump"],
        ["select", "-k", "2"],
        ["docs"],
        ["tree", "pump.md"],
        ["doctor"],
        ["diff", "pump.md"],
        ["audit", "queue"],
        ["audit", "log"],
        ["eval", "QUESTIONS"],
        ["keys", "list"],
        ["keys", "revoke", "0123abcd"],
        ["reembed"],
    ],
)
def test_reading_commands_refuse_a_store_that_does_not_exist(
    tmp_path: Path, args: list[str]
) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "q1", "question": "x", "kind": "specific", "gold": {}}\n')
    args = [str(questions) if a == "QUESTIONS" else a for a in args]
    typo = tmp_path / "no-such-store"
    code, out, err = run_cli(*args, "--store", str(typo), env=HASHING, check=False)
    assert code == 1, (out, err)
    _one_line_error(err, "no Overstory store", str(typo))
    assert not typo.exists()


def test_a_dry_run_plans_without_making_the_store(tmp_path: Path) -> None:
    store = tmp_path / "not-yet"
    code, out, _ = run_cli(
        "ingest", str(_folder(tmp_path)), "--dry-run", "--store", str(store), "--json", env=HASHING
    )
    assert code == 0 and out["dry_run"] is True
    assert [d["status"] for d in out["documents"]] == ["new"] and out["summaries_computed"] > 0
    assert not store.exists()


def test_ingest_still_creates_a_new_store(tmp_path: Path) -> None:
    store = tmp_path / "new-store"
    run_cli("ingest", str(_folder(tmp_path)), "--store", str(store), env=HASHING)
    code, out, _ = run_cli("docs", "--store", str(store), "--json", env=HASHING)
    assert [d["doc_id"] for d in out["documents"]] == ["pump.md"]


def test_a_corrupt_catalog_is_one_line(tmp_path: Path) -> None:
    store = tmp_path / "s"
    store.mkdir()
    (store / "overstory.db").write_bytes(b"this is not a database, just some text " * 100)
    for args in (["docs"], ["ingest", str(_folder(tmp_path))], ["serve", "--port", "1"]):
        code, out, err = run_cli(*args, "--store", str(store), env=HASHING, check=False)
        assert code == 1, (args, err)
        _one_line_error(err, "not an Overstory catalog", "overstory.db")


def _serve(store: Path, port: int) -> subprocess.CompletedProcess[str]:
    cmd = [str(BIN / "overstory"), "serve", "--host", "127.0.0.1", "--port", str(port)]
    return subprocess.run(
        [*cmd, "--store", str(store)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**ServerProcess(store, log=Path("/dev/null")).env},
        timeout=120,
    )


@pytest.mark.slow
def test_a_second_serve_is_refused_in_one_line(tmp_path: Path) -> None:
    store = tmp_path / "s"
    server = ServerProcess(store, log=tmp_path / "server.log").start()
    try:
        # The same store on another port: the store is already served.
        second = _serve(store, free_port())
        assert second.returncode == 1, second.stderr
        _one_line_error(second.stderr, "already serving the store", str(store))
        # Another store on the port in use.
        third = _serve(tmp_path / "other", server.port)
        assert third.returncode == 1, third.stderr
        _one_line_error(third.stderr, f"cannot listen on 127.0.0.1:{server.port}")
        assert server.proc is not None and server.proc.poll() is None
    finally:
        server.stop()


assert OVERSTORY  # the CLI entry point the helpers run


@pytest.mark.parametrize(
    ("env", "config", "needles"),
    [
        ({"OVERSTORY_MAX_K": "abc"}, None, ("max_k", "OVERSTORY_MAX_K", "integer")),
        ({"OVERSTORY_AUTH": "Off"}, None, ("auth", "OVERSTORY_AUTH", "'keys' or 'off'")),
        ({}, 'auth = "Off"\n', ("auth", "overstory.toml", "'keys' or 'off'")),
        ({}, "max_k = [\n", ("overstory.toml", "not valid TOML")),
        ({"OVERSTORY_CHUNK_TOKENS": "9"}, None, ("chunk_tokens", "greater than or equal to 32")),
    ],
)
def test_a_bad_setting_is_one_line_naming_it(
    tmp_path: Path, env: dict[str, str], config: str | None, needles: tuple[str, ...]
) -> None:
    full = {**HASHING, **env}
    if config is not None:
        path = tmp_path / "overstory.toml"
        path.write_text(config)
        full["OVERSTORY_CONFIG"] = str(path)
    store = str(tmp_path / "s")
    for args in (("docs", "--store", store), ("serve", "--store", store, "--port", "1")):
        code, _, err = run_cli(*args, env=full, check=False)
        assert code == 1, err
        _one_line_error(err, "setting" if "TOML" not in needles[-1] else "config", *needles)
