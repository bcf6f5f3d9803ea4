"""The ``nodes`` table: the reads of the browse, audit, query and selection paths."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

from indexer.sourced import ResolvedSentence, loads_resolved
from indexer.store.backends import Row
from indexer.store.records import LexicalRow, NodeRecord, PassageRow, VectorSource
from indexer.vector_text import embedding_text, within

if TYPE_CHECKING:
    from indexer.store.db import Database

# The heading path of a node's document root (its title, or nothing): a vector is embedded
# under the node's headings below it (indexer.vector_text).
_TITLE_PATH = (
    "(SELECT r.heading_path FROM nodes r WHERE r.build_id = n.build_id AND r.ordinal = 0)"
    " AS title_path"
)
_RECORD_COLUMNS = (
    "node_id, build_id, doc_id, parent_id, ordinal, level, title, heading_path, char_start,"
    " char_end, page_start, page_end, vector_id, summary_key, n_passages, first_passage,"
    " last_passage, covers"
)


class NodeTable:
    """Reads of the nodes of complete builds (builds never change once complete)."""

    def __init__(self, database: Database) -> None:
        self._db = database

    # rows (browse, audit) ------------------------------------------------------------------
    def rows(self, node_ids: Iterable[str]) -> list[Row]:
        """Nodes by id (unknown ids are left out), in no particular order."""
        return list(self._db.rows_in("SELECT * FROM nodes WHERE node_id IN ({marks})", node_ids))

    def children(self, node_id: str, build_id: int, *, inner: bool = False) -> list[Row]:
        """A node's children in order; only the inner ones (not passages) with ``inner``."""
        extra = " AND level != 'passage'" if inner else ""
        return self._db.db.execute(
            f"SELECT * FROM nodes WHERE parent_id = ? AND build_id = ?{extra} ORDER BY ordinal",
            (node_id, build_id),
        ).fetchall()

    def inner_of_build(self, build_id: int) -> list[Row]:
        """A build's inner nodes (everything but passages) in pre-order."""
        return self._db.db.execute(
            "SELECT * FROM nodes WHERE build_id = ? AND level != 'passage' ORDER BY ordinal",
            (build_id,),
        ).fetchall()

    def inner_hashes(self, build_id: int) -> set[str]:
        """The Merkle hashes of a build's inner nodes."""
        rows = self._db.db.execute(
            "SELECT hash FROM nodes WHERE build_id = ? AND level != 'passage'", (build_id,)
        )
        return {r[0] for r in rows}

    def find_in_build(self, build_id: int, *, node_hash: str, level: str) -> str | None:
        """The id of a build's node with this hash and level, or None."""
        row = self._db.db.execute(
            "SELECT node_id FROM nodes WHERE build_id = ? AND hash = ? AND level = ?",
            (build_id, node_hash, level),
        ).fetchone()
        return str(row[0]) if row is not None else None

    def passage_texts(self, parent_ids: Iterable[str]) -> dict[str, list[str]]:
        """The texts of each node's own passages (its direct passage children), in order."""
        out: dict[str, list[str]] = defaultdict(list)
        rows = self._db.rows_in(
            "SELECT parent_id, text, ordinal FROM nodes WHERE parent_id IN ({marks})"
            " AND level = 'passage' ORDER BY ordinal",
            parent_ids,
        )
        for r in sorted(rows, key=lambda r: r["ordinal"]):
            out[r["parent_id"]].append(r["text"] or "")
        return out

    def passages_between(
        self, build_id: int, first: str, last: str, *, limit: int, offset: int
    ) -> tuple[list[Row], int]:
        """One page of a build's passages from ``first`` to ``last`` (node ids), and the total."""
        bounds = self._db.db.execute(
            "SELECT MIN(ordinal), MAX(ordinal) FROM nodes WHERE node_id IN (?, ?)", (first, last)
        ).fetchone()
        where = "build_id = ? AND level = 'passage' AND ordinal BETWEEN ? AND ?"
        args = (build_id, bounds[0], bounds[1])
        db = self._db.db
        total = db.execute(f"SELECT COUNT(*) FROM nodes WHERE {where}", args).fetchone()[0]
        page = db.execute(
            f"SELECT * FROM nodes WHERE {where} ORDER BY ordinal LIMIT ? OFFSET ?",
            (*args, limit, offset),
        ).fetchall()
        return page, int(total)

    def subtree_ids(self, node_id: str) -> set[str]:
        """The ids of a node and of everything below it."""
        rows = self._db.db.execute(
            "WITH RECURSIVE below(id) AS (SELECT CAST(? AS TEXT) UNION ALL"
            " SELECT n.node_id FROM nodes n JOIN below ON n.parent_id = below.id)"
            " SELECT id FROM below",
            (node_id,),
        )
        return {r[0] for r in rows}

    # selection --------------------------------------------------------------------------------
    def passages_of_build(self, build_id: int) -> list[PassageRow]:
        """A build's passages in document order."""
        rows = self._db.db.execute(
            "SELECT node_id, heading_path, vector_id FROM nodes"
            " WHERE build_id = ? AND level = 'passage' ORDER BY ordinal",
            (build_id,),
        )
        return [
            PassageRow(node_id=r[0], heading_path=r[1], vector_id=r[2]) for r in rows.fetchall()
        ]

    def passage_details(self, node_ids: Iterable[str]) -> dict[str, Row]:
        """Text and provenance of passages: node row plus ``source`` and ``revision``."""
        rows = self._db.rows_in(
            "SELECT n.node_id, n.doc_id, n.heading_path, n.char_start, n.char_end,"
            " n.page_start, n.page_end, n.text, d.source, b.revision"
            " FROM nodes n JOIN builds b ON b.build_id = n.build_id"
            " JOIN documents d ON d.doc_id = n.doc_id WHERE n.node_id IN ({marks})",
            node_ids,
        )
        return {r["node_id"]: r for r in rows}

    # vectors ----------------------------------------------------------------------------------
    def served_vector_sources(self, wanted: set[str], headings: int = 0) -> list[VectorSource]:
        """What each wanted vector of a served build was embedded from (one per vector id),
        each text under its last ``headings`` headings (setting ``embed_headings``)."""
        rows = self._db.db.execute(
            f"SELECT n.vector_id, n.doc_id, n.level, n.heading_path, {_TITLE_PATH}, n.text,"
            " s.text AS summary FROM nodes n JOIN documents d ON n.build_id = d.current_build"
            " LEFT JOIN summaries s ON s.key = n.summary_key WHERE n.vector_id IS NOT NULL"
        )
        return _vector_sources((r for r in rows if r["vector_id"] in wanted), headings)

    def vector_sources_of_build(self, build_id: int, headings: int = 0) -> list[VectorSource]:
        """What each vector of one build was embedded from (one per vector id), each text
        under its last ``headings`` headings (setting ``embed_headings``)."""
        rows = self._db.db.execute(
            f"SELECT n.vector_id, n.doc_id, n.level, n.heading_path, {_TITLE_PATH}, n.text,"
            " s.text AS summary FROM nodes n LEFT JOIN summaries s ON s.key = n.summary_key"
            " WHERE n.build_id = ? AND n.vector_id IS NOT NULL ORDER BY n.ordinal",
            (build_id,),
        )
        return _vector_sources(rows, headings)

    def vector_count(self, build_id: int) -> int:
        """Distinct vectors a build references."""
        row = self._db.db.execute(
            "SELECT COUNT(DISTINCT vector_id) FROM nodes WHERE build_id = ?", (build_id,)
        ).fetchone()
        return int(row[0])

    def lexical_rows(self, build_id: int) -> list[LexicalRow]:
        """A build's embedded nodes with the text the lexical index reads, in order."""
        rows = self._db.db.execute(
            "SELECT n.node_id, n.level, n.heading_path, n.text, s.text AS summary FROM nodes n"
            " LEFT JOIN summaries s ON s.key = n.summary_key"
            " WHERE n.build_id = ? AND n.vector_id IS NOT NULL ORDER BY n.ordinal",
            (build_id,),
        ).fetchall()
        return [
            LexicalRow(
                node_id=r["node_id"],
                level=r["level"],
                heading_path=json.loads(r["heading_path"]),
                text=(r["text"] if r["level"] == "passage" else r["summary"]) or "",
            )
            for r in rows
        ]

    # records (the query path) -------------------------------------------------------------------
    def records_by_vector(
        self, vector_ids: Iterable[str], builds: frozenset[int] | None = None
    ) -> dict[str, list[NodeRecord]]:
        """Nodes that use each vector id (identical texts share one vector), of the given builds
        when ``builds`` is given, in document order."""
        out: dict[str, list[NodeRecord]] = {}
        rows = self._db.rows_in(
            f"SELECT {_RECORD_COLUMNS} FROM nodes WHERE vector_id IN ({{marks}})", vector_ids
        )
        for row in sorted(rows, key=lambda r: r["ordinal"]):
            if builds is None or row["build_id"] in builds:
                out.setdefault(row["vector_id"], []).append(NodeRecord.from_row(row))
        return out

    def records_by_id(
        self, node_ids: Iterable[str], builds: frozenset[int] | None = None
    ) -> dict[str, NodeRecord]:
        """Nodes by id, restricted to the given builds when ``builds`` is given."""
        rows = self._db.rows_in(
            f"SELECT {_RECORD_COLUMNS} FROM nodes WHERE node_id IN ({{marks}})", node_ids
        )
        return {
            r["node_id"]: NodeRecord.from_row(r)
            for r in rows
            if builds is None or r["build_id"] in builds
        }

    def records_of_build(self, build_id: int, *, inner: bool = False) -> list[NodeRecord]:
        """A build's nodes (only the inner ones with ``inner``) in pre-order."""
        extra = " AND level != 'passage'" if inner else ""
        rows = self._db.db.execute(
            f"SELECT {_RECORD_COLUMNS} FROM nodes WHERE build_id = ?{extra} ORDER BY ordinal",
            (build_id,),
        ).fetchall()
        return [NodeRecord.from_row(r) for r in rows]

    def records_of_builds(
        self, build_ids: Iterable[int], *, inner: bool = False
    ) -> dict[int, list[NodeRecord]]:
        """Several builds' nodes (only the inner ones with ``inner``), each in pre-order; every
        build asked for is a key (an empty list when it has none)."""
        ids = list(dict.fromkeys(build_ids))
        extra = " AND level != 'passage'" if inner else ""
        rows = self._db.rows_in(
            f"SELECT {_RECORD_COLUMNS} FROM nodes WHERE build_id IN ({{marks}}){extra}", ids
        )
        out: dict[int, list[NodeRecord]] = {b: [] for b in ids}
        for row in sorted(rows, key=lambda r: (r["build_id"], r["ordinal"])):
            out[row["build_id"]].append(NodeRecord.from_row(row))
        return out

    def records_below(self, node: NodeRecord, *, limit: int | None = None) -> list[NodeRecord]:
        """The passages a summary node covers, in document order."""
        if node.covers is not None:
            found = self.records_by_id(node.covers, frozenset({node.build_id}))
            ordered = [found[i] for i in node.covers if i in found]
            return ordered[:limit] if limit else ordered
        if node.first_passage is None or node.last_passage is None:
            return []
        db = self._db.db
        bounds = db.execute(
            "SELECT ordinal FROM nodes WHERE node_id IN (?, ?) ORDER BY ordinal",
            (node.first_passage, node.last_passage),
        ).fetchall()
        lo, hi = int(bounds[0][0]), int(bounds[-1][0])
        rows = db.execute(
            f"SELECT {_RECORD_COLUMNS} FROM nodes WHERE build_id = ? AND ordinal BETWEEN ? AND ?"
            " AND level = 'passage' ORDER BY ordinal" + (f" LIMIT {int(limit)}" if limit else ""),
            (node.build_id, lo, hi),
        ).fetchall()
        return [NodeRecord.from_row(r) for r in rows]

    def texts_of(self, nodes: Iterable[NodeRecord]) -> dict[str, tuple[str, str | None]]:
        """Each node's text and writer: a passage's own text; a summary and its summarizer."""
        nodes = list(nodes)
        out: dict[str, tuple[str, str | None]] = {}
        rows = self._db.rows_in(
            "SELECT node_id, text FROM nodes WHERE node_id IN ({marks})",
            (n.node_id for n in nodes if n.is_passage),
        )
        for row in rows:
            out[row["node_id"]] = (row["text"] or "", None)
        by_key: dict[str, tuple[str, str | None]] = {}
        rows = self._db.rows_in(
            "SELECT key, text, backend, model, prompt_version FROM summaries"
            " WHERE key IN ({marks})",
            (n.summary_key for n in nodes if not n.is_passage and n.summary_key),
        )
        for row in rows:
            writer = f"{row['backend']}/{row['model']}@{row['prompt_version']}"
            by_key[row["key"]] = (row["text"], writer)
        for n in nodes:
            if not n.is_passage:
                out[n.node_id] = by_key.get(n.summary_key or "", ("", None))
        return out

    def sentences_of(self, node_ids: Iterable[str]) -> dict[str, list[ResolvedSentence]]:
        """The sourced sentences of summary nodes (absolute spans); absent where none."""
        rows = self._db.rows_in(
            "SELECT node_id, sentences FROM nodes WHERE node_id IN ({marks})"
            " AND sentences IS NOT NULL",
            node_ids,
        )
        return {r["node_id"]: loads_resolved(r["sentences"]) for r in rows}


def _vector_sources(rows: Iterable[Row], headings: int) -> list[VectorSource]:
    out: dict[str, VectorSource] = {}
    for r in rows:
        if r["vector_id"] not in out:
            passage = r["level"] == "passage"
            out[r["vector_id"]] = VectorSource(
                vector_id=r["vector_id"],
                doc_id=r["doc_id"],
                kind="p" if passage else "s",
                text=embedding_text(
                    within(json.loads(r["heading_path"]), json.loads(r["title_path"] or "[]")),
                    (r["text"] if passage else r["summary"]) or "",
                    headings,
                ),
            )
    return list(out.values())
