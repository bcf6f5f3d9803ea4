"""Pieces of a budgeted context: merged quotes, trimmed summaries, reading order, prompt text.

:mod:`retriever.context` chooses which nodes a context should hold, best first; this module
turns a chosen set into pieces and counts what they cost. Quotes of one revision whose
character ranges overlap or touch become one piece; a summary keeps only the sentences whose
source spans are not already quoted (a passage quoted is not also paraphrased) nor taken from
the same source as a sentence of a summary chosen before it, and none that only says that no
sentence of its node could be quoted (it holds none of the source's text); the pieces are
ordered by document (the document of the best node first) and, within a document, in reading
order; each gets a citation number in that order.

The prompt text names each document once: a line ``# source › headings`` opens its pieces (the
headings all of them lie under), and each piece's header gives only its label and the headings
below that line. A header that repeated the source and the whole heading path took a sixth of a
context's tokens on the real manuals; said once, that budget goes to text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from indexer.sourced import ResolvedSentence
from indexer.summarizers.framing import NO_STATEMENT
from retriever.snapshot import NodeRecord, ServedDocument

PieceKind = Literal["quote", "summary"]
SEPARATOR = "\n\n"


@dataclass(frozen=True)
class Chosen:
    """A node the context may hold: its record, document, text and (summaries) sentences."""

    node: NodeRecord
    doc: ServedDocument
    text: str
    sentences: tuple[ResolvedSentence, ...] = ()


@dataclass(frozen=True)
class CharRange:
    """``[char_start, char_end)`` in the revision's extracted text."""

    char_start: int
    char_end: int


@dataclass(frozen=True)
class ContextPiece:
    """One labelled piece of a context, with the provenance its citation number stands for.

    Attributes:
        citation: The number the prompt text cites it by (``[1]``), in reading order.
        kind: ``quote`` (passage text, verbatim) or ``summary`` (a summary's sentences).
        label: ``quote`` or what the summary summarizes, with pages when known.
        doc_id: The document.
        source: The document's source name.
        revision: The served revision the text comes from.
        heading_path: The headings above the piece (for merged quotes: those they share).
        node_ids: The passages merged into the quote, or the summarized node.
        ranges: Character ranges of the quoted text, or of the summary's node.
        pages: First and last page, or None for formats without pages.
        text: The quoted text, or the summary sentences kept.
        tokens: What the piece costs in the prompt text (its header line included, and the
            document line when it opens its document's pieces).
        where: The headings its header names: those below its document's line (for a
            summary, without its own title, which the label names).
        opens: The document line the piece opens its document's pieces with, or "".
    """

    citation: int
    kind: PieceKind
    label: str
    doc_id: str
    source: str
    revision: str
    heading_path: tuple[str, ...]
    node_ids: tuple[str, ...]
    ranges: tuple[CharRange, ...]
    pages: tuple[int, int] | None
    text: str
    tokens: int
    where: tuple[str, ...] = ()
    opens: str = ""

    def header(self) -> str:
        """The piece's line in the prompt text: number, label, the headings below its
        document's line."""
        return f"[{self.citation}]{self.unnumbered()}"

    def unnumbered(self) -> str:
        """The header after the number."""
        return f" {self.label}" + (f" | {' › '.join(self.where)}" if self.where else "")

    def render(self) -> str:
        """The piece as the prompt text holds it: document line, header, text."""
        opening = f"{self.opens}\n" if self.opens else ""
        return f"{opening}{self.header()}\n{self.text}"


@dataclass
class _Draft:
    kind: PieceKind
    node: NodeRecord
    doc: ServedDocument
    text: str
    node_ids: list[str]
    start: int
    end: int
    pages: tuple[int, int] | None
    heading_path: tuple[str, ...]
    rank: int


def pages_label(pages: tuple[int, int] | None) -> str:
    """``p. 3`` or ``pp. 3–5``; empty without pages."""
    if pages is None:
        return ""
    first, last = pages
    return f"p. {first}" if first == last else f"pp. {first}–{last}"


def summary_label(node: NodeRecord, doc: ServedDocument) -> str:
    """What a summary summarizes: ``summary of 4 Maintenance, pp. 37–58``."""
    if node.level == "cluster":
        what = f"a group of {node.n_passages} related passages of {doc.source}"
    elif node.level == "document":
        what = f"the whole document {node.title or doc.source}"
    else:
        what = node.title or "an untitled section"
    pages = pages_label(node.pages)
    return f"summary of {what}" + (f", {pages}" if pages else "")


def _union_pages(a: tuple[int, int] | None, b: tuple[int, int] | None) -> tuple[int, int] | None:
    if a is None or b is None:
        return a or b
    return (min(a[0], b[0]), max(a[1], b[1]))


def _common_path(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def _merge_quotes(quotes: list[_Draft]) -> list[_Draft]:
    """Quotes of one revision whose ranges overlap or touch, merged (text joined at the seam)."""
    out: list[_Draft] = []
    for q in sorted(quotes, key=lambda d: (d.node.build_id, d.start, d.end)):
        last = out[-1] if out else None
        exact = len(q.text) == q.end - q.start
        if last is None or last.node.build_id != q.node.build_id or q.start > last.end or not exact:
            out.append(q)
            continue
        if q.end > last.end:
            last.text += q.text[last.end - q.start :]
            last.end = q.end
        last.node_ids.append(q.node.node_id)
        last.pages = _union_pages(last.pages, q.pages)
        last.heading_path = _common_path(last.heading_path, q.heading_path)
        last.rank = min(last.rank, q.rank)
    return out


def _quoted(sentence: ResolvedSentence, build: int, quotes: list[_Draft]) -> bool:
    """True when every source span of the sentence lies inside a quote of the same revision."""
    if not sentence.spans:
        return False
    return all(
        any(
            q.node.build_id == build and q.start <= s.char_start and s.char_end <= q.end
            for q in quotes
        )
        for s in sentence.spans
    )


def _summary_text(item: Chosen, quotes: list[_Draft], said: set[tuple[int, int, int]]) -> str:
    """The summary without the sentences a quote or an earlier summary already holds, nor
    those that only say nothing could be quoted (all of it without sentences); ``said``
    collects the source spans of the sentences kept. A sentence sharing a source span with one
    already kept repeats its text (a part line quotes its part's lead, or how the lead opens)."""
    if not item.sentences:
        return item.text.strip()
    build = item.node.build_id
    kept = []
    for s in item.sentences:
        spans = {(build, sp.char_start, sp.char_end) for sp in s.spans}
        if _quoted(s, build, quotes) or spans & said or NO_STATEMENT in s.text:
            continue
        said |= spans
        kept.append(s.text.strip())
    return " ".join(t for t in kept if t)


def drafts(chosen: Sequence[Chosen]) -> list[_Draft]:
    """The chosen nodes as pieces, quotes merged and summaries trimmed, in context order."""
    quotes = _merge_quotes(
        [
            _Draft(
                "quote",
                c.node,
                c.doc,
                c.text,
                [c.node.node_id],
                c.node.char_start,
                c.node.char_end,
                c.node.pages,
                c.node.heading_path,
                rank,
            )
            for rank, c in enumerate(chosen)
            if c.node.is_passage and c.text.strip()
        ]
    )
    summaries = []
    said: set[tuple[int, int, int]] = set()
    for rank, c in enumerate(chosen):
        if c.node.is_passage:
            continue
        text = _summary_text(c, quotes, said)
        if text:
            summaries.append(
                _Draft(
                    "summary",
                    c.node,
                    c.doc,
                    text,
                    [c.node.node_id],
                    c.node.char_start,
                    c.node.char_end,
                    c.node.pages,
                    c.node.heading_path,
                    rank,
                )
            )
    pieces = quotes + summaries
    first: dict[str, int] = {}
    for p in pieces:
        first[p.node.doc_id] = min(first.get(p.node.doc_id, p.rank), p.rank)
    # reading order within a document: a summary before the passages it summarizes
    pieces.sort(
        key=lambda p: (first[p.node.doc_id], p.node.doc_id, p.start, p.kind != "summary", -p.end)
    )
    return pieces


def _document_lines(drafted: list[_Draft]) -> list[tuple[str, tuple[str, ...]]]:
    """Per draft: the document line it opens ("" within its document) and the headings above
    it that the line names (those all of its document's drafts lie under)."""
    shared: dict[str, tuple[str, ...]] = {}
    for d in drafted:
        path = d.heading_path
        shared[d.node.doc_id] = _common_path(shared.get(d.node.doc_id, path), path)
    out = []
    for i, d in enumerate(drafted):
        prefix = shared[d.node.doc_id]
        first = i == 0 or drafted[i - 1].node.doc_id != d.node.doc_id
        line = "# " + " › ".join([d.doc.source, *prefix]) if first else ""
        out.append((line, prefix))
    return out


def _where(d: _Draft, prefix: tuple[str, ...]) -> tuple[str, ...]:
    below = d.heading_path[len(prefix) :]
    if d.kind == "summary" and below and below[-1] == d.node.title:
        return below[:-1]  # the label names it
    return below


def finish(drafted: list[_Draft], count: Callable[[str], int]) -> list[ContextPiece]:
    """Numbered, labelled pieces with their token cost."""
    out = []
    lines = _document_lines(drafted)
    for number, (d, (opens, prefix)) in enumerate(zip(drafted, lines, strict=True), start=1):
        pages = pages_label(d.pages)
        if d.kind == "quote":
            label = "quote" + (f", {pages}" if pages else "")
        else:
            label = summary_label(d.node, d.doc)
        piece = ContextPiece(
            citation=number,
            kind=d.kind,
            label=label,
            doc_id=d.node.doc_id,
            source=d.doc.source,
            revision=d.doc.revision,
            heading_path=d.heading_path,
            node_ids=tuple(d.node_ids),
            ranges=(CharRange(d.start, d.end),),
            pages=d.pages,
            text=d.text.strip(),
            tokens=0,
            where=_where(d, prefix),
            opens=opens,
        )
        # counted in parts, so that a piece renumbered by an insertion costs no recount
        cost = count(f"[{number}]") + count(f"{piece.unnumbered()}\n{piece.text}{SEPARATOR}")
        cost += count(f"{opens}\n") if opens else 0
        out.append(_with_tokens(piece, cost))
    return out


def _with_tokens(piece: ContextPiece, tokens: int) -> ContextPiece:
    from dataclasses import replace

    return replace(piece, tokens=tokens)


def render(pieces: Sequence[ContextPiece]) -> str:
    """The prompt text: every piece's header and text, blank lines between."""
    return SEPARATOR.join(p.render() for p in pieces)
