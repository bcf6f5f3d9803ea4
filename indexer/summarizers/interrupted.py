"""Sentences that code interrupts: "… then run" / ``$ git commit --amend`` / "which will replace
the old commit …" is one sentence, written around a line of code.

Read block by block, its head is an unfinished sentence and its tail a lower-case fragment, and
neither may be quoted; read as one paragraph with the code inline, it is a whole sentence. The
joined block keeps the source's offsets: the blank lines become spaces and the code is written
on one line between two marks, padded to the length it had, so every span still slices the
source. :data:`CODE_MARK` is turned into a backtick once the unit is rendered.
"""

from __future__ import annotations

import re

from indexer.summarizers.blocks import Block

CODE_MARK = "\ue000"  # a private-use character: no markup pattern touches it
_MAX_CODE_LINES = 2
_MAX_CODE_CHARS = 120
_ENDED = re.compile(r"[.!?][\"')\]’”]*\s*$")


def join_interrupted(blocks: list[Block]) -> list[Block]:
    """``blocks`` with each unfinished paragraph, the short code under it and the lower-case
    paragraph going on after it joined into one paragraph; so too a wrapped paragraph a page
    break cuts in two."""
    out: list[Block] = []
    i = 0
    while i < len(blocks):
        joined = _joined(blocks, i)
        if joined is not None:
            out.append(joined)
            i += 3
        elif out and (across := _across_page(out[-1], blocks[i])) is not None:
            out[-1] = across
            i += 1
        else:
            out.append(blocks[i])
            i += 1
    return out


_PAGE_BREAK = 4  # at most this many characters between a page's last line and the next's first


def _across_page(head: Block, tail: Block) -> Block | None:
    """One paragraph of a wrapped text, when a page break is all that parts an unfinished
    sentence from its lower-case rest."""
    if head.width is None or tail.width is None:
        return None
    if head.kind != "paragraph" or tail.kind != "paragraph":
        return None
    between = tail.start - (head.start + len(head.text))
    end = head.text.rstrip()
    if not 0 < between <= _PAGE_BREAK or _ENDED.search(end) or end.endswith(":"):
        return None
    if not tail.text.lstrip()[:1].islower():
        return None
    text = head.text + " " * between + tail.text
    return Block("paragraph", head.start, text, alone=head.alone, width=head.width)


def _joined(blocks: list[Block], i: int) -> Block | None:
    if i + 2 >= len(blocks):
        return None
    head, code, tail = blocks[i], blocks[i + 1], blocks[i + 2]
    if head.kind != "paragraph" or code.kind != "code" or tail.kind != "paragraph":
        return None
    if _ENDED.search(head.text) or not tail.text.lstrip()[:1].islower():
        return None
    inline = _inline(code.text)
    between = tail.start - (head.start + len(head.text))  # the code and the blank lines
    if inline is None or len(inline) + 2 > between:
        return None
    text = head.text + " " + inline.ljust(between - 1) + tail.text
    return Block("paragraph", head.start, text, alone=True)


def _inline(code: str) -> str | None:
    """The code on one line between two marks, if it is short."""
    lines = [ln.strip() for ln in code.split("\n") if ln.strip() and not _fence(ln)]
    if not lines or len(lines) > _MAX_CODE_LINES:
        return None
    one = " ".join(lines)
    if len(one) > _MAX_CODE_CHARS or "`" in one:
        return None
    return f"{CODE_MARK}{one}{CODE_MARK}"


def _fence(line: str) -> bool:
    return line.lstrip().startswith(("```", "~~~"))


def goes_on_after(blocks: list[Block], i: int) -> bool:
    """Whether the sentence before a piece of code goes on after it ("when running: <code>
    the volume for /foo will be removed")."""
    after = blocks[i].text.lstrip() if i < len(blocks) else ""
    return blocks[i].kind == "paragraph" and after[:1].islower() if after else False
