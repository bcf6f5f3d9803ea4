"""Where a quoted unit starts: at the head of its paragraph, or after sentences of it.

A writer opens a paragraph with a statement that stands on the heading and on what the reader
already has; the sentences after it go on from it, and not only where a pronoun or a connective
says so (an implied subject, a condition stated once for the paragraph, "the value" named a
sentence earlier). Read against the judges' verdicts on the tuning half of the summary benchmark,
an extracted sentence whose paragraph's sentence before it was not quoted was misleading two to
four times as often as one that opened its paragraph or came right after a quoted sentence, for
every summarizer judged (this one: 13.6 % against 3.2 %). So a unit from the middle of a
paragraph is quoted with the units before it back to the paragraph's opening, or not at all.
"""

from __future__ import annotations

from indexer.sourced import SourcedSentence
from indexer.summarizers.blocks import TERMINAL, Block, blocks_of, ends_paragraph
from indexer.summarizers.cues import complete, leans_back, points_forward
from indexer.summarizers.sentences import Piece, sentence_spans, strip_markup
from indexer.tokens import count_tokens

_PARAGRAPHS = ("paragraph", "item")


def sentence_before(blocks: list[Block]) -> dict[int, int]:
    """For every sentence of a paragraph or list item other than its first, where it starts →
    where the sentence before it ends. A wrapped text's paragraph that no blank line parts from
    the one before starts after a short line (:func:`.blocks.ends_paragraph`)."""
    out: dict[int, int] = {}
    for block in blocks:
        if block.kind not in _PARAGRAPHS:
            continue
        pieces = sentence_spans(block.text, block.start)
        for before, piece in zip(pieces, pieces[1:], strict=False):
            if not ends_paragraph(block, before.end):
                out[piece.start] = before.end
    return out


def only_statement(runs: list[tuple[int, str]]) -> Piece | None:
    """The sentence opening a node whose text holds no quotable unit, when it is a whole
    statement that stands on the heading: the node's one statement, quoted even where it
    points elsewhere ("See the vendor's documentation for installing …") or names code in its
    prose, since it is all the node says in prose and, unquoted, the summary would say nothing."""
    for run_start, text in runs[:1]:
        blocks = blocks_of(text, run_start)
        if blocks and _title_line(blocks[0]):
            blocks = blocks[1:]
        if not blocks or blocks[0].kind != "paragraph":
            return None
        pieces = sentence_spans(blocks[0].text, blocks[0].start)
        first = pieces[0] if pieces else None
        if first is None or not complete(first.text) or leans_back(first.text):
            return None
        if points_forward(first.text):
            return None  # "the functions listed below may be used instead": what it says is below
        bare = strip_markup(first.text)
        if bare.rstrip("\"')]’” ").endswith("?") or not _balanced(bare):
            return None  # a question, or a sentence cut inside a quotation
        return first
    return None


def _title_line(block: Block) -> bool:
    """The node's heading line, read as a heading or as a short line of code."""
    text = block.text.strip()
    return block.kind in ("heading", "code") and "\n" not in text and not TERMINAL.search(text)


def _balanced(text: str) -> bool:
    return text.count("(") == text.count(")") and text.count("“") == text.count("”")


def _same_length(piece: Piece, span: tuple[int, int]) -> bool:
    """Whether a sentence of a quote is as long as the span it is paired with, give or take
    the whitespace a quote collapses: a sentence holding a lead-in and its first item, beside
    a span of the lead-in alone, is not."""
    quoted = len(piece.text)
    return abs((span[1] - span[0]) - quoted) <= 5 + quoted // 10


def opening_of(lead: SourcedSentence, limit: int) -> SourcedSentence | None:
    """A lead's first sentences within ``limit`` tokens (None when all fit, or not even the
    first). A lead quotes a paragraph from its opening on, so its first sentences stand alone:
    a part too long to be named by its whole lead is named by how it opens."""
    pieces = sentence_spans(lead.text)
    text, cut = "", ("", 0)
    for k, (piece, span) in enumerate(zip(pieces, lead.spans, strict=False), 1):
        if not _same_length(piece, span):
            break  # no longer one span per sentence: a cut could split a list from its lead-in
        text = f"{text} {piece.text}".strip()
        if count_tokens(text) > limit:
            break
        if not piece.text.rstrip().endswith(":"):
            cut = (text, k)  # never right after a lead-in, whose items come after the cut
    text, k = cut
    if k in (0, len(pieces)):
        return None
    return SourcedSentence(text, lead.spans[:k], lead.kind, lead.verified)
