"""The catalog on SQLite and on PostgreSQL: one contract, versioned migrations, mapped errors.

The contract tests run on both backends (a real PostgreSQL 15 started by the tests); the
migration tests upgrade an empty database and a store made before migrations existed.
"""

from __future__ import annotations

import shlex
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from indexer.errors import CatalogIntegrityError, ConfigError
from indexer.index import Index, open_catalog
from indexer.settings import Settings
from indexer.store.catalog import Catalog
from indexer.store.schema import HEAD, REVISIONS, migrate, schema_revision
from tests.audit_support import DOC, audit_index, ingest_manual
from tests.helpers import ROOT, catalog_env, run_cli
from tests.http_support import service
from tests.pg_support import PostgresServer

pytestmark = pytest.mark.backends


def _catalog(settings: Settings) -> Catalog:
    return open_catalog(settings)


def _new_build(catalog: Catalog, doc_id: str) -> int:
    return catalog.start_build(
        doc_id=doc_id,
        source=doc_id,
        revision="r1",
        fmt="md",
        summarizer="s",
        embedder="e",
        text="t",
    )


# the contract, on both backends --------------------------------------------------------------
def test_rows_behave_as_sqlite_rows_do(fast_settings: Settings) -> None:
    catalog = _catalog(fast_settings)
    _new_build(catalog, "a.md")
    row = catalog.db.execute("SELECT doc_id, source, current_build FROM documents").fetchone()
    assert row["doc_id"] == row[0] == "a.md"
    assert row.keys() == ["doc_id", "source", "current_build"]
    assert dict(zip(row.keys(), row, strict=True)) == {
        "doc_id": "a.md",
        "source": "a.md",
        "current_build": None,
    }
    assert len(row) == 3 and tuple(row) == ("a.md", "a.md", None)
    (doc_id, _, _) = row
    assert doc_id == "a.md"
    assert (
        catalog.db.execute("SELECT doc_id FROM documents WHERE doc_id = ?", ("x",)).fetchone()
        is None
    )
    catalog.close()


def test_ids_come_back_from_inserts_and_counters_differ(fast_settings: Settings) -> None:
    catalog = _catalog(fast_settings)
    first, second = _new_build(catalog, "a.md"), _new_build(catalog, "b.md")
    assert 0 < first < second
    assert {r["build_id"] for r in catalog.db.execute("SELECT build_id FROM builds")} == {
        first,
        second,
    }
    catalog.close()


def test_every_commit_moves_the_data_version_and_nothing_else_does(
    fast_settings: Settings,
) -> None:
    reader, writer = _catalog(fast_settings), _catalog(fast_settings)
    before = reader.data_version()
    assert reader.data_version() == before
    reader.documents()
    assert reader.data_version() == before
    _new_build(writer, "a.md")
    after = reader.data_version()
    assert after != before
    _new_build(reader, "b.md")  # a commit by the reader itself
    assert reader.data_version() != after
    reader.close()
    writer.close()


def test_a_read_snapshot_sees_one_state(fast_settings: Settings) -> None:
    reader, writer = _catalog(fast_settings), _catalog(fast_settings)
    _new_build(writer, "a.md")
    with reader.read_snapshot():
        assert [d for (d,) in reader.db.execute("SELECT doc_id FROM documents")] == ["a.md"]
        done = threading.Event()
        threading.Thread(target=lambda: (_new_build(writer, "b.md"), done.set())).start()
        assert done.wait(30), "a writer waited for a reader"
        assert [d for (d,) in reader.db.execute("SELECT doc_id FROM documents")] == ["a.md"]
    assert reader.db.execute("SELECT COUNT(*) FROM documents").fetchone()[0] == 2
    reader.close()
    writer.close()


def test_a_failed_write_leaves_nothing(fast_settings: Settings) -> None:
    catalog = _catalog(fast_settings)
    with pytest.raises(CatalogIntegrityError), catalog.write() as db:
        db.execute(
            "INSERT INTO api_keys (key_id, key_hash, role, name, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            ("k1", "h", "reader", "one", 1.0),
        )
        db.execute(
            "INSERT INTO api_keys (key_id, key_hash, role, name, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            ("k2", "h", "reader", "same hash", 2.0),
        )
    assert catalog.keys.count() == 0
    with pytest.raises(CatalogIntegrityError, match="role"), catalog.write() as db:
        db.execute(
            "INSERT INTO api_keys (key_id, key_hash, role, name, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            ("k3", "h3", "root", "no such role", 3.0),
        )
    catalog.close()


def test_writers_on_two_connections_wait_for_each_other(fast_settings: Settings) -> None:
    # a read-modify-write inside write() is safe: no two writers interleave (BEGIN IMMEDIATE on
    # SQLite, the catalog_version row lock on PostgreSQL), whatever process they are in
    catalogs = [_catalog(fast_settings) for _ in range(4)]
    with catalogs[0].write() as db:
        db.execute("INSERT INTO meta (key, value) VALUES ('n', '0')")

    def bump(catalog: Catalog) -> None:
        for _ in range(10):
            with catalog.write() as db:
                n = int(db.execute("SELECT value FROM meta WHERE key = 'n'").fetchone()[0])
                db.execute("UPDATE meta SET value = ? WHERE key = 'n'", (str(n + 1),))

    threads = [threading.Thread(target=bump, args=(c,)) for c in catalogs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    row = catalogs[0].db.execute("SELECT value FROM meta WHERE key = 'n'").fetchone()
    assert row[0] == "40"
    for c in catalogs:
        c.close()


def test_the_schema_is_at_the_head_after_open(fast_settings: Settings) -> None:
    catalog = _catalog(fast_settings)
    assert schema_revision(catalog.backend) == HEAD == REVISIONS[-1]
    catalog.close()


# migrations ------------------------------------------------------------------------------------
@pytest.mark.parametrize("catalog_backend", ["sqlite"], indirect=True)
def test_a_store_made_before_migrations_is_upgraded_in_place(
    fast_settings: Settings, catalog_backend: str
) -> None:
    index = audit_index(fast_settings)
    ingest_manual(index)
    index.catalog.reviews.log(actor="ana", action="document.ingest", doc_id=DOC, detail={})
    tree = index.tree(DOC)
    index.close()
    # what the code before migrations left: the same tables, no alembic_version
    db = sqlite3.connect(fast_settings.store / "overstory.db")
    db.execute("DROP TABLE alembic_version")
    db.commit()
    counts = {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in _TABLES}
    db.close()
    assert counts["nodes"] > 5 and counts["summaries"] > 0 and counts["audit_log"] == 1

    index = Index(fast_settings)
    assert schema_revision(index.catalog.backend) == HEAD
    assert index.tree(DOC) == tree
    db = sqlite3.connect(fast_settings.store / "overstory.db")
    assert {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in _TABLES} == counts
    db.close()
    with pytest.raises(CatalogIntegrityError, match="append-only"):
        index.catalog.db.execute("DELETE FROM audit_log")
    index.close()


_TABLES = ("documents", "builds", "nodes", "summaries", "vector_copies", "audit_log", "jobs")


def test_overstory_migrate_creates_and_then_keeps_the_schema(
    tmp_path: Path, catalog_backend: str, request: pytest.FixtureRequest
) -> None:
    store = tmp_path / "store"
    args = ["migrate", "--store", str(store)]
    if catalog_backend == "postgres":
        server: PostgresServer = request.getfixturevalue("postgres")
        args += ["--database-url", _empty_database(server)]
    _, first, _ = run_cli(*args, "--json")
    assert first["before"] is None and first["after"] == HEAD and first["upgraded"] is True
    assert first["dialect"] == ("sqlite" if catalog_backend == "sqlite" else "postgresql")
    _, again, _ = run_cli(*args, "--json")
    assert again["before"] == again["after"] == HEAD and again["upgraded"] is False
    _, text, _ = run_cli(*args)
    assert f"schema already at revision {HEAD}" in text


@pytest.mark.parametrize("catalog_backend", ["postgres"], indirect=True)
def test_a_postgres_catalog_behind_is_refused_naming_the_command(
    tmp_path: Path, postgres: PostgresServer, catalog_backend: str
) -> None:
    url = _empty_database(postgres)
    settings = Settings(store=tmp_path / "store", embedder="hashing", database_url=url)
    with pytest.raises(ConfigError, match="has no Overstory schema.*overstory migrate"):
        Index(settings)
    migrate(url, revision=REVISIONS[0])
    with pytest.raises(ConfigError, match=f"at schema revision {REVISIONS[0]}.*needs {HEAD}"):
        Index(settings)
    env = {"OVERSTORY_EMBEDDER": "hashing", **catalog_env(settings)}
    for command in (["docs"], ["serve", "--port", "1"]):
        code, out, err = run_cli(*command, "--store", str(settings.store), env=env, check=False)
        assert code == 1, (out, err)
        assert f"overstory migrate --database-url {url}" in err, err
    assert not (settings.store / "overstory.db").exists()
    done = migrate(url)
    assert (done.before, done.after) == (REVISIONS[0], HEAD)
    index = Index(settings)
    assert index.documents() == []
    index.close()


def _empty_database(server: PostgresServer) -> str:
    url = server.create_database()
    server.drop_database(url)
    server.sql(f"CREATE DATABASE {url.rsplit('/', 1)[1]}")
    return url


# errors ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("catalog_backend", ["postgres"], indirect=True)
def test_a_catalog_that_does_not_answer_is_a_canonical_503(
    fast_settings: Settings, postgres: PostgresServer, catalog_backend: str
) -> None:
    import psycopg

    name = fast_settings.database_url.rsplit("/", 1)[1]
    # new connections of this database give up on a lock after 300 ms
    postgres.sql(f"ALTER DATABASE {name} SET lock_timeout = '300ms'")
    with service(fast_settings) as svc:
        reader = svc.as_role("reader")
        assert svc.client.get("/v1/documents", headers=reader).status_code == 200
        with psycopg.connect(fast_settings.database_url) as blocker:
            blocker.execute("LOCK TABLE documents IN ACCESS EXCLUSIVE MODE")
            r = svc.client.get("/v1/documents", headers=reader)
        assert r.status_code == 503, r.text
        assert set(r.json()) == {"error"}
        error = r.json()["error"]
        assert error["code"] == "catalog_unavailable"
        assert "does not answer" in error["message"] and "lock" in error["message"]
        assert error["detail"] == {"sqlstate": "55P03"}
        assert svc.client.get("/v1/documents", headers=reader).status_code == 200


@pytest.mark.parametrize("catalog_backend", ["sqlite"], indirect=True)
def test_opening_a_current_catalog_loads_no_migration_code(
    fast_settings: Settings, catalog_backend: str
) -> None:
    open_catalog(fast_settings).close()  # made and migrated
    code = (
        "import sys; from pathlib import Path; from indexer.store.catalog import Catalog; "
        f"Catalog(Path({str(fast_settings.store / 'overstory.db')!r})); "
        "print(sorted(m for m in ('alembic', 'sqlalchemy') if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]", proc.stderr


@pytest.mark.parametrize("catalog_backend", ["postgres"], indirect=True)
def test_the_documented_migrate_example_runs(
    tmp_path: Path, postgres: PostgresServer, catalog_backend: str
) -> None:
    page = (ROOT / "docs" / "how-to" / "scale-out.md").read_text(encoding="utf-8")
    section = page.split("## The catalog on PostgreSQL\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```\n", 1)[1].split("```", 1)[0]
    (line,) = [x for x in block.splitlines() if x.startswith("overstory migrate")]
    args = shlex.split(line.split("  #", 1)[0])[1:]
    url = _empty_database(postgres)
    args = [url if a.startswith("postgresql://") else a for a in args]
    _, out, _ = run_cli(*args, "--store", str(tmp_path / "store"))
    assert f"schema upgraded from none to {HEAD}" in out
