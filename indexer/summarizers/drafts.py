"""Quoted units as drafts: the source pieces a unit quotes, and how they read in a summary.

A draft holds sentence pieces, the list items a lead-in takes (or one piece of code, or a
table's rows), the entry it describes and how much of a list it leaves out; :func:`render` writes
its text: sentences as written, items joined by semicolons, a table as "caption (columns): row;
row", code in backticks, the entry's name before what describes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from indexer.summarizers.blocks import TERMINAL, WORD, Block, header_of, indent
from indexer.summarizers.cues import is_pointer, points_forward, quotable
from indexer.summarizers.framing import MORE_ITEMS, MORE_LINES, MORE_ROWS
from indexer.summarizers.sentences import Piece, strip_markup
from indexer.summarizers.terms import term_text
from indexer.tokens import count_tokens

MAX_UNIT_TOKENS = 110
"""A unit longer than this (a lead-in with a long list) is not quoted at all."""
_MAX_CARRIED = 90  # tokens: a unit going on into the next paragraph stays quotable whole


@dataclass
class Draft:
    pieces: list[Piece]
    items: list[Piece] = field(default_factory=list)
    label: bool = False
    term: tuple[Piece, ...] = ()
    more: int = 0  # items left out of a long list
    table: list[list[str]] | None = None  # header and rows, for a table's unit
    code: bool = False  # the items are one short piece of code the lead-in introduces
    follows: bool = False  # its first sentence speaks of the code the draft before quotes


def goes_on(carry: Draft | None, piece: Piece) -> bool:
    """Whether a sentence leaning back may be taken with the unit ending the paragraph before
    it: a unit of plain sentences, all quotable, short enough to take one more."""
    if carry is None or carry.items or carry.table is not None or carry.code:
        return False
    if not quotable(piece.text) or points_forward(piece.text) or ": " in piece.text:
        return False  # it announces what follows: a unit of its own or none
    pieces = carried(carry)
    if not all(quotable(p.text) for p in pieces):
        return False
    tokens = sum(count_tokens(p.text) for p in pieces) + count_tokens(piece.text)
    return tokens <= _MAX_CARRIED


def quotable_part(draft: Draft) -> Draft | None:
    """The draft up to its first sentence that is no statement (a sentence never depends on the
    ones after it), or None when its first is none."""
    if draft.table is not None:
        return draft
    bad = next((k for k, p in enumerate(draft.pieces) if not quotable(led(draft, k))), None)
    if bad is None:
        return draft
    if bad == 0:
        return None
    return Draft(draft.pieces[:bad], [], draft.label, draft.term, follows=draft.follows)


def led(draft: Draft, k: int) -> str:
    """Piece ``k`` as the summary reads it: a lead-in that runs on into its list ("This can be
    changed by" over "1. selecting …; 2. giving …") is a sentence its items complete."""
    text = draft.pieces[k].text.rstrip()
    runs_on = draft.items and not draft.code and k == len(draft.pieces) - 1
    ended = TERMINAL.search(text) or text.endswith(":")
    return f"{text}:" if runs_on and not ended else text


def kept_drafts(out: list[Draft]) -> list[Draft]:
    """The quotable part of each draft; a draft that goes on from code (``follows``) only
    when the draft before it, which quotes that code, is kept whole."""
    kept: list[Draft] = []
    whole = False
    for draft in out:
        part = quotable_part(draft)
        ok = part is not None and (not draft.follows or whole)
        if ok and part is not None:
            kept.append(part)
        whole = ok and part is draft
    return kept


def speaks_on(out: list[Draft], code: Block, piece: Piece) -> bool:
    """Whether a sentence right after ``code`` that leans on it ("To use this slot, set …")
    may be quoted going on from the unit before, which quotes that code with its lead-in: the
    summary then holds what it leans on, right before it."""
    before = out[-1] if out else None
    if before is None or not before.code or not before.items:
        return False
    inside = code.start <= before.items[0].start < code.start + len(code.text)
    return inside and quotable(piece.text) and not points_forward(piece.text)


def carried(carry: Draft) -> list[Piece]:
    """The sentences of ``carry`` a sentence leaning back goes on from: a pointer closing their
    paragraph ("See gitcvs-migration(7) for instructions …") is an aside the text goes on past,
    left out of the unit."""
    pieces = list(carry.pieces)
    while len(pieces) > 1 and is_pointer(pieces[-1].text):
        pieces.pop()
    return pieces


_DRAWING = re.compile(r"^[\s/\\|_=+*.^-]*[/\\|][\s/\\|_=+*.^-]*$")
_CAPTION = re.compile(r"^(?:table|tab\.)\s+[\w.-]+", re.IGNORECASE)
_SHORT_CODE = 160


def is_caption(block: Block) -> bool:
    """A table's caption ("Table 5.2. List of network address ranges")."""
    text = block.text.strip()
    return "\n" not in text and bool(_CAPTION.match(text)) and len(WORD.findall(text)) <= 16


_OPTION = re.compile(r"(?<![\w-])--?[a-z]")


def synopsis(block: Block) -> Piece | None:
    """A node opening with a short block of code that names options (``--pid="" : Set the
    PID namespace …``): the synopsis of what the node is about, quoted whole."""
    if block.kind != "code" or not _OPTION.search(block.text):
        return None
    first, _, rest = block.text.partition("\n")
    ends = TERMINAL.search(first.rstrip()) is not None
    if ends and rest.strip() and _OPTION.search(first) and indent(rest) > indent(first):
        # The option's line over its own description, indented under it: the line names it.
        block = Block("code", block.start, first)
    found = short_code(block, limit=2 * _SHORT_CODE)
    return found[0] if found is not None and found[1] == 0 else None


def short_code(block: Block, limit: int = _SHORT_CODE) -> tuple[Piece, int] | None:
    """The code a lead-in introduces, as quoted: whole when it is short (a command, a syntax),
    else its first line; and how many lines are left out."""
    lines = [ln for ln in block.text.split("\n") if ln.strip() and "```" not in ln]
    if not lines:
        return None
    whole = " ".join(ln.strip() for ln in lines)
    shown = lines if len(lines) <= 3 and len(whole) <= limit else lines[:1]
    if len(shown) > 1 and any(_DRAWING.match(ln) for ln in lines):
        return None  # a drawing ("o--o <-- head" over "\"): its lines mean nothing run together
    if len(shown[0].strip()) > limit:
        return None
    start = block.start + block.text.index(shown[0]) + len(shown[0]) - len(shown[0].lstrip())
    end = block.start + block.text.index(shown[-1]) + len(shown[-1].rstrip())
    text = " ".join(ln.strip() for ln in shown)
    return Piece(text, start, end), len(lines) - len(shown)


def table_draft(
    block: Block,
    caption: Piece | None,
    labelled: bool,
    lead: list[Piece] | None = None,
    *,
    goes_on: bool = False,
) -> Draft | None:
    """A small table as one unit: its caption or lead-in, its header and the rows that fit;
    counted as going on past its last row when ``goes_on`` (lines right under it that may be
    rows whose cells were not told apart)."""
    lines = block.text.split("\n")
    rows = [
        [c.strip() for c in line.strip().strip("|").split("|")]
        for line in lines
        if "|" in line and not re.fullmatch(r"[\s|:-]+", line)
    ]
    if len(lines) > 1 and header_of(lines[0], lines[1]):
        rows.insert(0, lines[0].split())
    if len(rows) < 2 or len(rows[0]) < 2:
        return None
    # A row with a "|" of its own in a cell cannot be told apart: it is left out.
    rows = [rows[0], *(r for r in rows[1:] if len(r) == len(rows[0]))]
    pieces = list(lead or ([caption] if caption is not None else []))
    if not pieces:
        return None  # a table with nothing saying what it is
    header, body = rows[0], rows[1:]
    budget = MAX_UNIT_TOKENS - sum(count_tokens(p.text) for p in pieces)
    budget -= count_tokens(" ".join(header))
    kept: list[list[str]] = []
    for row in body:
        cost = count_tokens(" ".join(row)) + 2
        if cost > budget:
            break
        kept.append(row)
        budget -= cost
    if not kept:
        return None
    end = block.start + len(block.text.rstrip())
    span = Piece(block.text, block.start, end)
    more = len(body) - len(kept) or int(goes_on)
    return Draft(pieces, [span], labelled, more=more, table=[header, *kept])


def render(draft: Draft) -> str:
    """The unit's text: sentences as written, a lead-in's list items joined by semicolons (and
    how many were left out), a table's rows, a defined term before its definition."""
    text = " ".join(strip_markup(p.text) for p in draft.pieces)
    if draft.table is not None:
        header, *rows = draft.table
        shown = "; ".join(", ".join(strip_markup(c) for c in row) for row in rows)
        text = f"{text.rstrip(':').rstrip('.')} ({', '.join(header)}): {shown}"
        if draft.more:
            text += f"; {MORE_ROWS}"
    elif draft.code:
        text = f"{text} `{draft.items[0].text}`".strip()
        if draft.more:
            text += " " + MORE_LINES.format(n=draft.more)
        if draft.term:
            text = f"{term_text(draft.term)}: {text}"
        return text + ("" if text.endswith(".") else ".")
    elif draft.items:
        items = [_item(p.text) for p in draft.items]
        if text.endswith("."):
            text = text[:-1] + ":"  # a sentence that leads a list without a colon
        text = f"{text} {'; '.join(items)}"
    if draft.more and draft.table is None and not draft.code:
        text = f"{text.rstrip('.')}; " + MORE_ITEMS.format(n=draft.more)
    if draft.term:
        text = f"{term_text(draft.term)}: {text}"
    text = text.strip()
    if text and not TERMINAL.search(text):
        text += "."
    return text


# The conjunction an item ends with before the last one ("is plumbing, and"): the semicolons
# joining the items say as much.
_LAST_BUT_ONE = re.compile(r"(?:[,;]\s*|\s+)(?:and|or)$")


def _item(text: str) -> str:
    said = " ".join(strip_markup(text).rstrip(".;,:").split())
    return _LAST_BUT_ONE.sub("", said).rstrip(".;,:")
