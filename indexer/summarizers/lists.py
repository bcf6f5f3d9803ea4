"""The items of a list as a summary quotes them: whole, after their lead-in, as many as fit."""

from __future__ import annotations

import re

from indexer.summarizers.blocks import LIST_ITEM, TERMINAL, WORD, Block, indent
from indexer.summarizers.cues import is_lead_in, points_forward
from indexer.summarizers.drafts import MAX_UNIT_TOKENS
from indexer.summarizers.sentences import Piece, sentence_spans
from indexer.tokens import count_tokens

_NUMBERED = re.compile(r"^\s*\d{1,3}[.)]\s")


def is_step(block: Block) -> bool:
    """Whether a list item is numbered: a step of a sequence, which alone would read as the
    whole procedure."""
    return _NUMBERED.match(block.text) is not None


def list_after(blocks: list[Block], i: int) -> tuple[list[Piece], int]:
    """The list items right after a lead-in (each whole), and the index after them. An item's
    own sub-list is part of that item, which its quote leaves out: only the items at the
    first one's depth are the list's."""
    items: list[Piece] = []
    depth = indent(blocks[i].text) if i < len(blocks) else 0
    while i < len(blocks) and blocks[i].kind == "item":
        body = blocks[i].text
        if indent(body) <= depth:
            mark = LIST_ITEM.match(body)
            lead = mark.end() if mark else 0
            stripped = _without_lead_in(body[lead:].rstrip())
            start = blocks[i].start + lead
            items.append(Piece(stripped, start, start + len(stripped)))
        i += 1
    return items, i


def _without_lead_in(item: str) -> str:
    """An item's text without a last sentence leading into the item's own sub-list or example
    ("… for some projects. Example:"), which the item's quote leaves out."""
    pieces = sentence_spans(item)
    if len(pieces) > 1 and is_lead_in(pieces[-1].text):
        return item[: pieces[-1].start].rstrip()
    return item


def fit_items(lead: list[Piece], items: list[Piece]) -> tuple[list[Piece], int]:
    """As many whole items as fit a unit after the lead-in, and how many are left out."""
    budget = MAX_UNIT_TOKENS - sum(count_tokens(p.text) for p in lead) - 6
    kept: list[Piece] = []
    for item in items:
        cost = count_tokens(item.text) + 1
        if cost > budget:
            break
        kept.append(item)
        budget -= cost
    return kept, len(items) - len(kept)


_LABEL_WORDS = 3


def under_label(blocks: list[Block], i: int, *, opening: bool) -> bool:
    """Whether the list starting at ``blocks[i]`` sits under a label line of its own
    ("Parameters", "Return values") that is not the node's heading: its items depend on the
    label as on a lead-in, and alone would read as the node's statements."""
    if i == 0 or (i == 1 and opening):
        return False
    label = blocks[i - 1].text.strip()
    return (
        blocks[i - 1].kind in ("code", "heading", "paragraph")
        and "\n" not in label
        and not TERMINAL.search(label)
        and 0 < len(WORD.findall(label)) <= _LABEL_WORDS
    )


# The most blocks of code or text one list item may hold before the list goes on.
_MAX_ITEM_BLOCKS = 3


def interrupted(blocks: list[Block], after: int) -> bool:
    """Whether a list goes on after blocks of code or text inside one of its items (steps with
    commands, an entry with its example)."""
    return after > 0 and list_end(blocks, after - 1) > after


def items_in(blocks: list[Block], i: int, end: int) -> int:
    """How many items of the list starting at ``blocks[i]`` lie before ``end``: those at its
    first item's depth (an item's own sub-list is part of that item)."""
    depth = indent(blocks[i].text)
    return sum(1 for b in blocks[i:end] if b.kind == "item" and indent(b.text) <= depth)


def _inside_item(blocks: list[Block], k: int) -> bool:
    """Whether ``blocks[k]`` may belong to the list item above it: code, or a paragraph that
    does not lead into a list of its own (a lead-in to code is the item's example's)."""
    block = blocks[k]
    if block.kind not in ("code", "paragraph"):
        return False
    last = block.text.rstrip()
    if not (is_lead_in(last) or points_forward(last)):
        return True
    # A lead-in ("Optional attributes:") starts a list of its own, unless code follows it.
    return k + 1 < len(blocks) and blocks[k + 1].kind == "code"


def list_end(blocks: list[Block], i: int) -> int:
    """The index after the list starting at ``blocks[i]`` (if any), its items' own code and
    paragraphs included: the list goes on wherever an item follows a few such blocks."""
    end = i
    while end < len(blocks):
        if blocks[end].kind == "item":
            end += 1
            continue
        k = end
        while k < len(blocks) and k - end < _MAX_ITEM_BLOCKS and _inside_item(blocks, k):
            k += 1
        if k < len(blocks) and blocks[k].kind == "item" and k > end and end > i:
            end = k
            continue
        break
    return end
