"""A query result's label and provenance as framework metadata, the same for every framework.

Each result of ``POST /v1/query`` becomes a text (the passage, or the summary) and this
metadata: ``kind`` (``passage`` or ``summary``), ``label`` (``quote`` or ``summary of 5
Maintenance, pp. 37–58``), ``level``, ``heading_path`` (the headings joined by `` › ``),
``pages`` (``p. 3`` or ``pp. 3–5``; None for formats without pages), ``covers`` (what a summary
covers), ``revision``, ``doc_id``, ``source``, ``node_id``, the character span, the summarizer,
the review state and a summary's ``sentences`` (each with the source spans it rests on); with
``expand``, a summary's best passages under ``support``. What a prompt shows (:data:`PROMPT_KEYS`)
is plain text, never a Python list or ``None``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from api.routes.context import ContextPiecePublic

METADATA_KEYS = (
    "kind",
    "label",
    "level",
    "heading_path",
    "pages",
    "covers",
    "revision",
    "doc_id",
    "source",
    "node_id",
    "rank",
    "char_start",
    "char_end",
    "summarizer",
    "review",
    "sentences",
    "support",
)
# What a language model should see beside the text: what it is and where it is from.
PROMPT_KEYS = ("label", "source", "heading_path", "pages")


PATH_SEPARATOR = " › "


def pages_text(pages: Sequence[int] | None) -> str | None:
    """``p. 3`` or ``pp. 3–5`` of a ``[first, last]`` pair; None without pages."""
    if not pages:
        return None
    first, last = pages
    return f"p. {first}" if first == last else f"pp. {first}–{last}"


def metadata_of(result: dict[str, Any]) -> dict[str, Any]:
    """The metadata of one result (``support`` only when the result has it)."""
    out = {key: result.get(key) for key in METADATA_KEYS if key != "support"}
    out["heading_path"] = PATH_SEPARATOR.join(result.get("heading_path") or [])
    out["pages"] = pages_text(result.get("pages"))
    if result.get("support"):
        out["support"] = [{**metadata_of(s), "text": s.get("text", "")} for s in result["support"]]
    return out


def citation(metadata: dict[str, Any]) -> str:
    """A one-line reference: ``quote — pump.md › 5 Maintenance › 5.3 Seals, pp. 41–42``."""
    parts = (metadata.get("source"), metadata.get("heading_path"))
    where = PATH_SEPARATOR.join(p for p in parts if p)
    pages = metadata.get("pages")
    if pages and metadata.get("kind") == "passage":
        where += f", {pages}"
    return f"{metadata.get('label')} — {where}"


# A context piece's metadata; the language model sees the first three beside the text.
CONTEXT_PROMPT_KEYS = ("citation", "label", "where")
CONTEXT_KEYS = (
    *CONTEXT_PROMPT_KEYS,
    "kind",
    "doc_id",
    "source",
    "revision",
    "heading_path",
    "pages",
    "node_ids",
    "ranges",
    "tokens",
)


def context_metadata(piece: ContextPiecePublic) -> dict[str, object]:
    """The metadata of one piece of a budgeted context: its citation number, label and place
    as plain text (what a prompt shows), then its provenance as values."""
    return {
        "citation": piece.citation,
        "label": piece.label,
        "where": PATH_SEPARATOR.join([piece.source, *piece.heading_path]),
        "kind": piece.kind,
        "doc_id": piece.doc_id,
        "source": piece.source,
        "revision": piece.revision,
        "heading_path": PATH_SEPARATOR.join(piece.heading_path),
        "pages": pages_text(piece.pages),
        "node_ids": list(piece.node_ids),
        "ranges": [[r.char_start, r.char_end] for r in piece.ranges],
        "tokens": piece.tokens,
    }
