-- The baseline catalog (revision 0001) on SQLite: the schema as it was before migrations, so a
-- store made then upgrades in place (every statement is IF NOT EXISTS). SQLite is the system of
-- record by default; Chroma holds derived vectors only.
CREATE TABLE IF NOT EXISTS documents (
    doc_id        TEXT PRIMARY KEY,
    source        TEXT NOT NULL,
    current_build INTEGER,
    created_at    REAL NOT NULL,
    updated_at    REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS builds (
    build_id     INTEGER PRIMARY KEY AUTOINCREMENT,
    doc_id       TEXT NOT NULL,
    revision     TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('building', 'complete', 'superseded', 'failed')),
    format       TEXT NOT NULL,
    summarizer   TEXT NOT NULL,
    embedder     TEXT NOT NULL,
    text         TEXT NOT NULL,
    root_node    TEXT,
    report       TEXT,
    created_at   REAL NOT NULL,
    completed_at REAL
);
CREATE INDEX IF NOT EXISTS builds_doc ON builds (doc_id, status);

CREATE TABLE IF NOT EXISTS nodes (
    node_id      TEXT PRIMARY KEY,
    build_id     INTEGER NOT NULL REFERENCES builds (build_id) ON DELETE CASCADE,
    doc_id       TEXT NOT NULL,
    parent_id    TEXT,
    ordinal      INTEGER NOT NULL,
    level        TEXT NOT NULL,
    title        TEXT,
    heading_path TEXT NOT NULL,
    char_start   INTEGER NOT NULL,
    char_end     INTEGER NOT NULL,
    page_start   INTEGER,
    page_end     INTEGER,
    hash         TEXT NOT NULL,
    text         TEXT,
    summary_key  TEXT,
    vector_id    TEXT,
    n_passages   INTEGER NOT NULL DEFAULT 0,
    first_passage TEXT,
    last_passage  TEXT,
    covers       TEXT
);
CREATE INDEX IF NOT EXISTS nodes_build ON nodes (build_id, ordinal);
CREATE INDEX IF NOT EXISTS nodes_parent ON nodes (parent_id);
CREATE INDEX IF NOT EXISTS nodes_vector ON nodes (vector_id);

CREATE TABLE IF NOT EXISTS summaries (
    key            TEXT PRIMARY KEY,
    text           TEXT NOT NULL,
    backend        TEXT NOT NULL,
    model          TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    input_tokens   INTEGER NOT NULL DEFAULT 0,
    output_tokens  INTEGER NOT NULL DEFAULT 0,
    parts          INTEGER NOT NULL DEFAULT 1,
    created_at     REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- HTTP ingestion jobs (indexer/jobs.py); progress, report and error are JSON.
CREATE TABLE IF NOT EXISTS jobs (
    job_id      TEXT PRIMARY KEY,
    doc_id      TEXT NOT NULL,
    filename    TEXT NOT NULL,
    upload      TEXT,
    size        INTEGER NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
    progress    TEXT NOT NULL DEFAULT '{}',
    report      TEXT,
    error       TEXT,
    retry_of    TEXT,
    created_at  REAL NOT NULL,
    started_at  REAL,
    finished_at REAL
);
CREATE INDEX IF NOT EXISTS jobs_status ON jobs (status, created_at);
CREATE INDEX IF NOT EXISTS jobs_doc ON jobs (doc_id, status);

-- The last change of each document's served revision (indexer/supersession.py): as_of is when
-- the published content was submitted (a job's upload time, a CLI ingest's start), revision is
-- NULL for a deletion. A job submitted before as_of is superseded: running it would roll back.
CREATE TABLE IF NOT EXISTS publishes (
    doc_id   TEXT PRIMARY KEY,
    as_of    REAL NOT NULL,
    revision TEXT
);

-- API keys (indexer/keys.py): only the sha256 of a key is stored.
CREATE TABLE IF NOT EXISTS api_keys (
    key_id       TEXT PRIMARY KEY,
    key_hash     TEXT NOT NULL UNIQUE,
    role         TEXT NOT NULL CHECK (role IN ('reader', 'editor', 'auditor', 'admin')),
    name         TEXT NOT NULL,
    created_at   REAL NOT NULL,
    last_used_at REAL,
    revoked_at   REAL
);

-- Expert reviews of summaries (indexer/reviews.py, indexer/audit.py), keyed by document and node
-- hash: a review holds while the source text below the node is unchanged. Rows are only ever
-- added; the latest row of a (doc_id, node_hash) is that node's review. flags: JSON lint flags
-- of the text reviewed (the correction for status 'corrected').
CREATE TABLE IF NOT EXISTS reviews (
    review_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    doc_id         TEXT NOT NULL,
    node_hash      TEXT NOT NULL,
    node_id        TEXT NOT NULL,
    heading_path   TEXT NOT NULL,
    level          TEXT NOT NULL,
    summary_key    TEXT,
    status         TEXT NOT NULL CHECK (status IN ('approved', 'corrected', 'rejected')),
    corrected_text TEXT,
    note           TEXT,
    reviewer       TEXT NOT NULL,
    flags          TEXT NOT NULL DEFAULT '[]',
    created_at     REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS reviews_node ON reviews (doc_id, node_hash, review_id);
CREATE INDEX IF NOT EXISTS reviews_place ON reviews (doc_id, level, heading_path);

-- Who reviewed what, when: append-only (the triggers refuse updates and deletes).
CREATE TABLE IF NOT EXISTS audit_log (
    entry_id  INTEGER PRIMARY KEY AUTOINCREMENT,
    at        REAL NOT NULL,
    actor     TEXT NOT NULL,
    action    TEXT NOT NULL,
    doc_id    TEXT NOT NULL,
    node_id   TEXT,
    node_hash TEXT,
    review_id INTEGER,
    detail    TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS audit_log_doc ON audit_log (doc_id, entry_id);
CREATE TRIGGER IF NOT EXISTS audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

-- Lint flags of a stored summary (indexer/audit.py), computed lazily. inputs: a hash of the
-- expert corrections among the node's children, which change what the summary is checked against.
CREATE TABLE IF NOT EXISTS lint_flags (
    summary_key TEXT PRIMARY KEY,
    inputs      TEXT NOT NULL,
    flags       TEXT NOT NULL,
    created_at  REAL NOT NULL
);

-- Every vector the vector store holds, kept here too (float32 bytes): the vector store is
-- derived data, rebuilt from these when it is damaged, without encoding anything again.
CREATE TABLE IF NOT EXISTS vector_copies (
    vector_id TEXT PRIMARY KEY,
    doc_id    TEXT NOT NULL,
    kind      TEXT NOT NULL,
    vector    BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS vector_copies_doc ON vector_copies (doc_id);

-- Revisions dropped by the retention rule (indexer/retention.py): asked for again, they answer
-- 410 Gone rather than 404, with when they were dropped.
CREATE TABLE IF NOT EXISTS pruned_revisions (
    doc_id      TEXT NOT NULL,
    revision    TEXT NOT NULL,
    build_id    INTEGER NOT NULL,
    ingested_at REAL,
    pruned_at   REAL NOT NULL,
    PRIMARY KEY (doc_id, revision, build_id)
);

-- What changed in each revision since the one before it, in one line (indexer/revisions.py),
-- computed once: a build never changes after it is published.
CREATE TABLE IF NOT EXISTS revision_changes (
    build_id      INTEGER PRIMARY KEY,
    previous      TEXT,
    line          TEXT NOT NULL,
    counts        TEXT NOT NULL
);
