"""The items of a list as a summary quotes them: whole, after their lead-in, as many as fit."""

from __future__ import annotations

import re

from indexer.summarizers.blocks import LIST_ITEM, Block
from indexer.summarizers.drafts import MAX_UNIT_TOKENS
from indexer.summarizers.sentences import Piece
from indexer.tokens import count_tokens

_NUMBERED = re.compile(r"^\s*\d{1,3}[.)]\s")


def is_step(block: Block) -> bool:
    """Whether a list item is numbered: a step of a sequence, which alone would read as the
    whole procedure."""
    return _NUMBERED.match(block.text) is not None


def list_after(blocks: list[Block], i: int) -> tuple[list[Piece], int]:
    """The list items right after a lead-in (each whole), and the index after them."""
    items: list[Piece] = []
    while i < len(blocks) and blocks[i].kind == "item":
        body = blocks[i].text
        mark = LIST_ITEM.match(body)
        lead = mark.end() if mark else 0
        stripped = body[lead:].rstrip()
        start = blocks[i].start + lead
        items.append(Piece(stripped, start, start + len(stripped)))
        i += 1
    return items, i


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
