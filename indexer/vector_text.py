"""What a node's vector is embedded from: its text, under its heading when asked.

A passage leaves its subject to the headings above it: "Append the keyword nts to the end of
your server lines" sits under "NTS Client Configuration", an FAQ's answer under its question, a
function's description under "Arithmetic Functions". Embedded alone, such a passage is far from
a question that names its subject; embedded under its section's heading, it is near. A summary
is embedded the same way, under its own heading. (BM25 reads a summary's last two headings too,
:mod:`retriever.lexical`; a passage's words are given to it as they are.)

The headings are the last ``headings`` of the node's headings inside its document (setting
``embed_headings``). The document's title is left out: it is the same for every node and would
only pull a document's vectors together (clusters of a document without headings are formed
from these vectors). With 0, or a node with no heading below the title (the document's own
summary, its opening passages), the text is embedded alone and the vector keeps the address it
had before the setting existed.

Off by default: on the held-out halves of both question sets over real manuals, one heading and
two each found one more question in the top five and lost three or four from first place (a
passage's siblings under one heading come closer together), within what a run's questions
decide; see docs/benchmarks/retrieval.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from indexer.hashing import hash_text

HEADINGS = 0
"""Default count of headings a node is embedded under (setting ``embed_headings``)."""


def within(heading_path: Sequence[str], title_path: Sequence[str]) -> tuple[str, ...]:
    """A node's headings below its document's title (``title_path``: the root's heading
    path, the title or nothing)."""
    return tuple(heading_path[len(title_path) :])


def embedding_text(headings_within: Sequence[str], text: str, headings: int = HEADINGS) -> str:
    """``text`` under the last ``headings`` of a node's headings inside its document
    (:func:`within`): ``A > B``, a blank line, the text."""
    found = [h.strip() for h in headings_within if h and h.strip()]
    heads = found[-headings:] if headings else []
    if not heads:
        return text
    return f"{' > '.join(heads)}\n\n{text}"


def embedding_key(level: str, headings_within: Sequence[str], text: str, headings: int) -> str:
    """The content address of a node's vector: a passage's by what it is embedded from, a
    summary's also by its level (a section and its only chapter may share a text)."""
    embedded = embedding_text(headings_within, text, headings)
    return hash_text(embedded if level == "passage" else f"{level}\n{embedded}")
