"""Self-contained units of a node's own text: what an extractive summary may quote.

A sentence picked out of its paragraph can change meaning: "That would allow software to use
both libraries' functions" said of *disabling* the macros, "As a result …" attached to the wrong
cause, "The following modes are supported:" without its list. So the text is read as a writer
would read it: blocks (paragraphs, list items, code, tables, admonition labels), then sentences,
and each sentence with what it depends on:

- a sentence that points back (a pronoun or demonstrative subject, a discourse connective,
  "the above") is taken with the sentence before it in its paragraph, or not at all;
- a lead-in (a sentence ending in a colon, the last one before a list) is taken with all it
  introduces, or not at all; a list item with its lead-in, or alone when the list has none;
- a sentence right after code goes on from the unit quoting that code with its lead-in, or is
  not quoted at all;
- code, tables, headings, navigation (title-case runs, pointers such as "See …", "described
  below"), labels and legal boilerplate are never units.

These are closed classes of English (pronouns, demonstratives, connectives) and the layout
conventions of technical writing, not patterns of particular sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexer.summarizers.blocks import Block, blocks_of, is_grammar, table_goes_on
from indexer.summarizers.cues import (
    announced,
    complete,
    cross_reference,
    is_lead_in,
    leans_back,
    points_forward,
    quotable,
    refers_to,
)
from indexer.summarizers.dialogue import dialogue_units
from indexer.summarizers.drafts import (
    Draft,
    carried,
    goes_on,
    is_caption,
    kept_drafts,
    quotable_part,
    render,
    short_code,
    speaks_on,
    synopsis,
    table_draft,
)
from indexer.summarizers.interrupted import CODE_MARK, goes_on_after, join_interrupted
from indexer.summarizers.lists import (
    fit_items,
    interrupted,
    is_step,
    items_in,
    list_after,
    list_end,
    under_label,
)
from indexer.summarizers.openings import sentence_before
from indexer.summarizers.sentences import Piece, sentence_spans, statements_of
from indexer.summarizers.terms import (
    declares_entry,
    marks,
    names_its_entry,
    nested,
    term_of,
    term_piece,
)


@dataclass(frozen=True)
class Unit:
    """A self-contained piece of a node's own text.

    Attributes:
        text: As a summary quotes it (markup stripped, whitespace collapsed, list items joined).
        spans: Its ``[start, end)`` ranges, relative to the node's start.
        order: Its position among the node's units.
        first: Whether it is the first unit of its run of text (the node's opening).
        admonition: Whether it sits under a "Warning"/"Note" label.
        table: Whether it renders the rows of a table.
        term: The entry it describes (a defined term, a command, a command's option), if any.
        opens: Whether it starts its paragraph (or is no paragraph's sentence).
        after: Whether it starts right after the sentence that ends the unit before it
            (:mod:`indexer.summarizers.openings`).
    """

    text: str
    spans: tuple[tuple[int, int], ...]
    order: int
    first: bool = False
    admonition: bool = False
    table: bool = False
    term: str | None = None
    opens: bool = True
    after: bool = False


def units_of(runs: list[tuple[int, str]], *, dialogue: bool = False) -> list[Unit]:
    """The self-contained units of a node's own text, in document order.

    Args:
        runs: ``(start, text)`` runs of the node's own text (see ``SummaryRequest.own_text``).
        dialogue: The text is a transcript: each turn's content statements are its units.
    """
    out: list[Unit] = []
    for n, (run_start, text) in enumerate(runs):
        blocks = blocks_of(text, run_start)
        found = dialogue_units(blocks) if dialogue else _units(blocks, opening=n == 0)
        before = {} if dialogue else sentence_before(join_interrupted(blocks))
        for draft in found:
            rendered = render(draft).replace(CODE_MARK, "`")
            if rendered:
                pieces = [*draft.term, *draft.pieces, *draft.items]
                ends = before.get(pieces[0].start) if pieces else None
                out.append(
                    Unit(
                        rendered,
                        tuple((p.start, p.end) for p in pieces),
                        len(out),
                        first=not out,
                        admonition=draft.label,
                        table=draft.table is not None,
                        term=" ".join(t.text for t in draft.term) or None,
                        opens=ends is None and not draft.follows,
                        after=draft.follows
                        or (ends is not None and bool(out) and out[-1].spans[-1][1] == ends),
                    )
                )
    return out


@dataclass
class _Reading:
    """Where a run of blocks is: under a label, inside an entry, after a table's caption."""

    labelled: bool = False
    term: tuple[Piece, ...] = ()
    command: Piece | None = None  # the entry whose options the following terms may be
    owner: tuple[Piece, ...] = ()  # the entry (its term given by a line above) being read
    caption: Piece | None = None
    opening: bool = False
    open_tail: bool = False  # the last unit ends the paragraph just read: the next may go on

    def end_entry(self) -> None:
        """Code, a table or a heading ends the entry (and the label) read so far."""
        self.labelled, self.owner = False, ()
        self.term, self.caption, self.command = (), None, None


def _units(blocks: list[Block], *, opening: bool = False) -> list[Draft]:
    """Units as sentence pieces (and the list items a lead-in takes), in order.

    Args:
        blocks: The blocks of one run of a node's own text.
        opening: The run opens the node: its first sentence may lean on the node's heading
            ("This option sets …" right under the option's heading).
    """
    out: list[Draft] = []
    reading = _Reading(opening=opening)
    blocks = join_interrupted(blocks)
    i = 0
    if opening and blocks and (found := synopsis(blocks[0])) is not None:
        out.append(Draft([], [found], code=True))
        i = 1
    while i < len(blocks):
        i = _step(blocks, i, out, reading)
    return kept_drafts(out)


def _step(blocks: list[Block], i: int, out: list[Draft], reading: _Reading) -> int:
    """Read ``blocks[i]`` (and what it takes with it); the index of the next block."""
    block = blocks[i]
    following = blocks[i + 1].kind if i + 1 < len(blocks) else ""
    if block.kind == "label":
        reading.labelled = True
    elif following == "table" and is_caption(block):
        reading.caption = term_piece(block)
    elif (
        following == "paragraph"
        and not _remarks_on(block, blocks[i + 1])
        and (found := term_of(block, blocks[i + 1])) is not None
    ):
        # A short line over a paragraph: a defined term (a definition list) or the synopsis
        # of a command or function, whose paragraph describes it and names it nowhere.
        reading.term, reading.command = nested(found, reading.command)
        reading.owner = ()
    elif block.kind == "paragraph" and reading.owner and not _names_owner(block):
        pass  # a further paragraph of an entry: whose it is the text no longer says
    elif block.kind == "table":
        draft = table_draft(
            block, reading.caption, reading.labelled, goes_on=table_goes_on(blocks, i)
        )
        if draft is not None:
            out.append(draft)
        reading.end_entry()
    elif block.kind == "item":
        labelled = under_label(blocks, i, opening=reading.opening)
        after = list_end(blocks, i) if labelled else _unled_list(blocks, i, out, reading)
        reading.term, reading.owner = (), ()
        return after
    elif block.kind != "paragraph":
        # Code that names no entry (another command's synopsis on several lines) ends the
        # entry whose options the following terms would be.
        reading.end_entry()
    else:
        # A further paragraph saying whose it is ("… this function returns -1") is the entry's.
        reading.term = reading.term or reading.owner
        opens = reading.opening and not any(d.pieces for d in out)  # a synopsis at most
        carry = out[-1] if reading.open_tail and out else None
        first, before = i, len(out)
        i, tail = _paragraph(
            blocks, i, out, reading.labelled, reading.term, opening=opens, carry=carry
        )
        # A function's entry that lists its parameters first ("error: is an error …") is
        # described by the paragraph after them: the term still names what it is about.
        waits = (
            bool(reading.term)
            and _PARAMETER.match(blocks[first].text) is not None
            and all(quotable_part(d) is None for d in out[before:])
        )
        reading.owner = () if waits else reading.term
        reading.term = reading.term if waits else ()
        reading.opening, reading.labelled = False, False
        reading.open_tail = tail
        return i + 1
    reading.open_tail = False
    return i + 1


_PARAMETER = re.compile(r"^\s*[A-Za-z_]\w*\s*:\s+\S[^\n]*$")


def _remarks_on(code: Block, below: Block) -> bool:
    """Whether the paragraph under a piece of code goes on about an example ("The link step of
    those other targets …") rather than describing an entry the code names. Under a line that
    is a term ("max_size (CCACHE_MAXSIZE)"), "This option …" names what the term is."""
    if code.kind != "code":
        return False
    first = sentence_spans(below.text)
    if first and declares_entry(code) and names_its_entry(first[0].text):
        return False
    return bool(first) and leans_back(first[0].text)


def _unled_list(blocks: list[Block], i: int, out: list[Draft], reading: _Reading) -> int:
    """A list with no lead-in: each item whose first sentence stands alone is a unit; the
    index after the list. A numbered item is a step of a sequence: alone it would read as the
    whole procedure."""
    while i < len(blocks) and blocks[i].kind == "item":
        first = _first_sentence(blocks[i])
        step = is_step(blocks[i])
        if first is not None and not step and not leans_back(first.text) and quotable(first.text):
            out.append(Draft([first], label=reading.labelled, term=reading.term))
        i += 1
    return i


def _paragraph(
    blocks: list[Block],
    i: int,
    out: list[Draft],
    labelled: bool,
    term: tuple[Piece, ...],
    *,
    opening: bool,
    carry: Draft | None = None,
) -> tuple[int, bool]:
    """The units of the paragraph ``blocks[i]``; the index of the last block it took, and
    whether the last unit ends this paragraph. An opening sentence leaning back ("Again, never
    do this …") goes on with ``carry``, the unit ending the paragraph before, if they fit."""
    chain: list[Piece] = []
    pieces = statements_of(blocks[i].text, blocks[i].start)
    after_code = _speaks_of_code(blocks, i)
    follows = False  # the chain goes on from the code the unit before quotes
    for j, piece in enumerate(pieces):
        text = piece.text
        heads_itself = j == 0 and (bool(term) or (opening and not after_code))
        leans = leans_back(text) or (j > 0 and refers_to(text, pieces[j - 1].text))
        if (leans or (j == 0 and after_code)) and not heads_itself:
            if j == 0 and not after_code and goes_on(carry, piece):
                assert carry is not None
                out.pop()
                chain, labelled, term = carried(carry), carry.label, carry.term
                follows = carry.follows
            follows = follows or (j == 0 and after_code and speaks_on(out, blocks[i - 1], piece))
            if not chain and not follows:
                if j == len(pieces) - 1 and i + 1 < len(blocks):
                    # Nor is the list it introduces: its items would read as another list's.
                    i = list_end(blocks, i + 1) - 1
                continue  # what it leans on is not quotable: neither is it
            chain.append(piece)
        else:
            follows = _emit(out, chain, labelled, term, follows)
            chain = [piece]
        listed = i + 1 < len(blocks) and blocks[i + 1].kind == "item"
        if j == len(pieces) - 1 and (is_lead_in(text) or points_forward(text) or listed):
            # It introduces what follows: taken with it (a list, a table, a command) or not at
            # all. A list right after a paragraph lists what its last sentence speaks of, colon
            # or not (a few picked items read as the whole list, "There are a few things to
            # think about" alone as all there is to say).
            taken = _lead_in(blocks, i + 1, chain, labelled, term)
            if taken is not None:
                taken[0].follows, follows = follows, False
                out.append(taken[0])
                i = taken[1]
            else:
                # Its list is not quoted item by item either; what it leans on stands alone.
                follows = _emit(out, chain[:-1], labelled, term, follows)
                i = list_end(blocks, i + 1) - 1
            chain = []
        elif points_forward(text):
            chain.pop()  # it points at what follows, which a summary does not hold
            follows = _emit(out, chain, labelled, term, follows)
            chain = []
    _emit(out, chain, labelled, term, follows)
    return i, bool(chain) and quotable(chain[0].text)


def _names_owner(block: Block) -> bool:
    first = sentence_spans(block.text)
    return bool(first) and names_its_entry(first[0].text)


def _speaks_of_code(blocks: list[Block], i: int) -> bool:
    """Text right after code speaks of that code ("We set both memory and swap, so …", "The
    correct form is: …" after the incorrect one), whether or not it repeats a word of it; text
    after a command's grammar describes the command."""
    return i > 0 and blocks[i - 1].kind == "code" and not is_grammar(blocks[i - 1])


def _emit(
    out: list[Draft], chain: list[Piece], labelled: bool, term: tuple[Piece, ...], follows: bool
) -> bool:
    """Add the chain as a draft; False, for the next chain, which follows no code."""
    if chain:
        out.append(Draft(list(chain), [], labelled, term, follows=follows))
    return False


def _lead_in(
    blocks: list[Block], i: int, chain: list[Piece], labelled: bool, term: tuple[Piece, ...]
) -> tuple[Draft, int] | None:
    """A lead-in with the list or table it introduces (None: it introduces code or nothing),
    and the index of the last block taken."""
    if i + 1 < len(blocks) and blocks[i + 1].kind == "table" and is_caption(blocks[i]):
        i += 1  # the table's caption sits between the lead-in and the table
    if i < len(blocks) and blocks[i].kind == "table":
        draft = table_draft(
            blocks[i], None, labelled, lead=list(chain), goes_on=table_goes_on(blocks, i)
        )
        return (draft, i) if draft is not None else None
    if i < len(blocks) and blocks[i].kind == "code":
        if not is_lead_in(chain[-1].text):
            return None  # "the following finds …": an example whose extent the text leaves open
        if _names_entry(blocks, i) and (not marks(blocks[i]) or _names_entry(blocks, i + 2)):
            # It introduces a list of entries, each with its own paragraph. A line of marks
            # ("&>>word") is a form to type as well as a name: an entry only in a list of them.
            return None
        found = short_code(blocks[i])
        if found is None or _more_code(blocks, i + 1) or goes_on_after(blocks, i + 1):
            return None  # no code, more than one piece of it, or a sentence the code interrupts
        code, more = found
        if more and len(chain) > 1:
            return None  # code too long to quote whole: the sentences before it stand alone
        lines = sum(1 for line in blocks[i].text.split("\n") if line.strip())
        if announced(chain[-1].text) not in (None, lines):
            return None  # "Two variables are always set:" over one line: the rest is elsewhere
        return Draft(list(chain), [code], labelled, term, more=more, code=True), i
    items, after = list_after(blocks, i)
    if not items or any(cross_reference(p.text) for p in items):
        return None  # a list of pointers to other pages is navigation, not content
    # A list going on past an item's own code or text (an entry with its example) is quoted
    # up to there; the items after it are counted with those left out.
    end = list_end(blocks, i) if interrupted(blocks, after) else after
    total = items_in(blocks, i, end)
    if announced(chain[-1].text) not in (None, total):
        return None  # the list is not what the lead-in counts: its items are elsewhere too
    if len(items) == 1 and any(b.kind == "item" for b in blocks[end:]):
        return None  # one item, and more after text between: the list goes on past it
    kept, more = fit_items(chain, items)
    if not kept or any(points_forward(p.text) for p in kept):
        return None
    more = total - len(kept)
    return Draft(list(chain), kept, labelled, term, more=more), end - 1


def _names_entry(blocks: list[Block], i: int) -> bool:
    """Whether ``blocks[i]`` is the term of an entry whose paragraph follows it."""
    if i + 1 >= len(blocks):
        return False
    below = blocks[i + 1]
    return below.kind == "paragraph" and term_of(blocks[i], below) is not None


def _more_code(blocks: list[Block], i: int) -> bool:
    """Whether ``blocks[i]`` is code going on from the block before (not an entry's term)."""
    return i < len(blocks) and blocks[i].kind == "code" and not _names_entry(blocks, i)


def _first_sentence(block: Block) -> Piece | None:
    pieces = sentence_spans(block.text, block.start)
    return pieces[0] if pieces and complete(pieces[0].text) else None


def listing(runs: list[tuple[int, str]]) -> Unit | None:
    """The first list or table of a node's own text as one unit without a lead-in (for a node
    that holds no quotable statement: its summary then shows what the list or table holds)."""
    for run_start, text in runs:
        blocks = blocks_of(text, run_start)
        for i, block in enumerate(blocks):
            if block.kind == "table":
                header = Piece("", block.start, block.start)
                draft = table_draft(
                    block, None, False, lead=[header], goes_on=table_goes_on(blocks, i)
                )
            elif block.kind == "item":
                items, _ = list_after(blocks, i)
                kept, more = fit_items([], items)
                # items after an item's own code or text are the same list's: counted too
                more += items_in(blocks, i, list_end(blocks, i)) - len(items)
                pointers = any(cross_reference(p.text) for p in items)
                draft = Draft([], kept, more=more) if len(items) >= 2 and kept else None
                draft = None if pointers else draft
            else:
                continue
            if draft is not None:
                pieces = [*draft.pieces, *draft.items]
                spans = tuple((p.start, p.end) for p in pieces if p.end > p.start)
                return Unit(render(draft).lstrip(" (").replace(") :", ":", 1), spans, 0)
    return None
