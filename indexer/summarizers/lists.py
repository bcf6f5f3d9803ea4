"""Where a list ends and how much of it a unit quotes.

A list goes on past code and paragraphs inside one of its items (steps with their commands, an
entry with its example): such a list is never counted short nor split into single items.
"""

from __future__ import annotations

from indexer.summarizers.blocks import LIST_ITEM, Block
from indexer.summarizers.cues import is_lead_in, points_forward
from indexer.summarizers.drafts import MAX_UNIT_TOKENS
from indexer.summarizers.sentences import Piece
from indexer.tokens import count_tokens

# The most blocks of code or text one list item may hold before the list goes on.
MAX_ITEM_BLOCKS = 3


def interrupted(blocks: list[Block], after: int) -> bool:
    """Whether a list goes on after blocks of code or text inside one of its items (steps with
    commands, an entry with its example)."""
    return after > 0 and list_end(blocks, after - 1) > after


def inside_item(block: Block) -> bool:
    """Whether a block may belong to the list item above it: code, or a paragraph that does not
    lead into a list of its own."""
    if block.kind == "code":
        return True
    if block.kind != "paragraph":
        return False
    last = block.text.rstrip()
    return not (last.endswith(":") or is_lead_in(last) or points_forward(last))


def list_end(blocks: list[Block], i: int) -> int:
    """The index after the list starting at ``blocks[i]`` (if any), its items' own code and
    paragraphs included: the list goes on wherever an item follows a few such blocks."""
    end = i
    while end < len(blocks):
        if blocks[end].kind == "item":
            end += 1
            continue
        k = end
        while k < len(blocks) and k - end < MAX_ITEM_BLOCKS and inside_item(blocks[k]):
            k += 1
        if k < len(blocks) and blocks[k].kind == "item" and k > end and end > i:
            end = k
            continue
        break
    return end


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
