"""A node's own text as blocks: paragraphs, list items, code, tables, labels, headings.

Blocks are cut at blank lines, and again where the kind of line changes (a wrapped PDF page has
no blank line between its paragraphs, lists and code): a line is code when it has a pattern only
code has (a grammar rule, an indented block, a comment, a declaration, an option) or symbols and
few words of prose; a list item takes its wrapped lines along. Each block of a wrapped text
knows the width its lines fill, so a reader can tell where a paragraph ended inside it
(:func:`ends_paragraph`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_BLOCK_BREAK = re.compile(r"\n[ \t]*\n")
_QUOTE_MARK = re.compile(r"(?m)^[ \t]*>[ \t]?")

LIST_ITEM = re.compile(r"^\s*(?:[-*+•◦▪]|\d{1,3}[.)]|[a-z][.)]|[A-Z][.)](?=\s+[A-Z]))\s+")

LABEL = re.compile(
    r"^\s*\|?\s*[*_]*(?:note|notes|warning|caution|tip|important|attention|danger|hint|"
    r"see also|example|examples)[*_]*\s*:?[*_]*\s*$",
    re.IGNORECASE,
)

WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")

TERMINAL = re.compile(r"[.!?][\"')\]’”]*$")

# Lines that are code whatever else they hold: a grammar rule, an indented block, a comment,
# a call on its own, a command-line option, a command after a shell prompt ("$ git log"), a
# Texinfo definition line in print ("[Function]int f (…)").
_DECLARATION = re.compile(
    r"\b(?:int|char|void|const|unsigned|long|double|float|size_t|struct|bool|enum)\b[^.]*"
    r"\([^()]*\)\s*;?\s*$"
)

_CODE_LINE = re.compile(
    r"::=|^\s{4,}\S|^\s*(?:#|//|--|/\*)\s|^[\w.:-]+\s*\(.*\)\s*;?\s*$|^\s*-{1,2}[A-Za-z][\w-]*[ ,=]"
    r"|^\s*usage:\s|^\s*[$%]\s+[\w./-]|[⇒⊣↦]|\berror→|^\s*\[[A-Z][A-Za-z ]{0,30}\][A-Za-z_]",
    re.IGNORECASE,
)

SYMBOL = re.compile(r"[{}=<>$\\;*&|^~]|::|->|\(\)")

_PROSE_WORD = re.compile(r"\b[a-z]{3,}\b")


@dataclass
class Block:
    kind: str  # paragraph | item | code | table | label | heading
    start: int
    text: str
    alone: bool = False  # blank lines on both sides: a block of its own, not a cut line
    width: float | None = None  # of a wrapped text (a PDF page): the width its lines fill


def blocks_of(text: str, offset: int) -> list[Block]:
    """Blocks at blank lines, each cut further where its lines change kind (a wrapped PDF page
    has no blank lines between paragraphs, lists and code)."""
    out: list[Block] = []
    pos = 0
    width = wrap_width(text)
    fences = [(f.start(), f.end()) for f in _FENCED.finditer(text)]
    breaks = [b for b in _BLOCK_BREAK.finditer(text) if not _inside(b.start(), fences)]
    for m in [*breaks, None]:
        end = m.start() if m else len(text)
        raw = _unquoted(text[pos:end])
        if raw.strip():
            lead = len(raw) - len(raw.lstrip("\n"))
            body, at = raw[lead:], offset + pos + lead
            first, _, rest = body.partition("\n")
            if rest.strip() and LABEL.match(first):
                # "| Warning" over its paragraph: a label, then the block it labels.
                out.append(Block("label", at, first))
                skip = len(first) + 1 + len(rest) - len(rest.lstrip())
                body, at = body[skip:], at + skip
            pieces = _segments(body, at)
            if _EXAMPLE.search(body):
                # A result line makes its block an example: the lines before it are its input.
                pieces = [Block("code", at, body)]
            pieces = [b for p in pieces if (b := _unfenced(p)) is not None]
            if len(pieces) == 1:
                pieces[0].alone = True
            for piece in pieces:
                piece.width = width
            out.extend(pieces)
        if m:
            pos = m.end()
    return out


# Texinfo's example glyphs at a line's start: what an input yields (⇒), prints (⊣), expands
# to (↦), or the error it raises.
_EXAMPLE = re.compile(r"(?m)^\s*(?:[⇒⊣↦]|error→)")

# A fenced code block (Markdown): one block of code, blank lines inside it included.
_FENCED = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.M | re.S)


_FENCE_LINE = re.compile(r"^[ \t]*(?:```|~~~)[^\n]*(?:\n|$)")


def _unfenced(block: Block) -> Block | None:
    """A code block without its fence lines: what it holds is read as any code is (a synopsis
    names its entry), only its kind is no longer a guess. None for fences alone."""
    if block.kind != "code":
        return block
    text, start = block.text, block.start
    if (m := _FENCE_LINE.match(text)) is not None:
        text, start = text[m.end() :], start + m.end()
    lines = text.rstrip().split("\n")
    if lines and _FENCE_LINE.match(lines[-1]):
        text = "\n".join(lines[:-1])
    if not text.strip():
        return None
    return Block("code", start, text.rstrip(), block.alone)


def _inside(at: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= at < b for a, b in spans)


def _unquoted(raw: str) -> str:
    """A block quote of prose read without its markers (blanked, offsets kept); a transcript
    whose lines start with a prompt ("> send") is left as it is."""
    lines = [ln for ln in raw.split("\n") if ln.strip()]
    if not lines or not all(_QUOTE_MARK.match(ln) for ln in lines):
        return raw
    if not any(TERMINAL.search(ln.rstrip()) for ln in lines):
        return raw
    return _QUOTE_MARK.sub(lambda m: " " * len(m.group(0)), raw)


# A Markdown heading ("### USER"; one mark only over a title, since "# apt install" is a root
# prompt). Short, it would otherwise read as a keyword line of code, and the paragraph under it
# as text speaking of that code. (Numbered lines, "2.4 Naming", are left as they were: in text
# read from a PDF, making them headings let table rows and margin notes under them be quoted.)
_ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(\S.*)$")


def is_heading_line(line: str) -> bool:
    """Whether a line is a heading by its Markdown markup."""
    atx = _ATX.match(line)
    return atx is not None and (len(atx.group(1)) > 1 or title_like(atx.group(2)))


def line_kind(line: str) -> str:
    if LABEL.match(line):
        return "label"
    if LIST_ITEM.match(line):
        return "item"
    if is_heading_line(line):
        return "heading"
    if is_table_row(line):
        return "table"
    if _ALTERNATIVES.search(line) and len(_PROSE_WORD.findall(_outside(line))) < 4:
        return "code"  # a synopsis: "set history {size <N>} {quiet|numbers}"
    if _is_code(line):
        return "code"
    stripped = line.strip()
    words = WORD.findall(stripped)
    if len(stripped) < 30 and not TERMINAL.search(stripped) and len(words) <= 2:
        return "code"  # a keyword line ("BEGIN", "END") or a fragment
    return "prose"


# A bar inside brackets is a grammar's alternative ("{portrait | landscape}", "[rw|ro]"), and
# TeX's \verb takes any character as its quote ("\verb|\pagestyle{x}|"): neither is a cell.
_VERB = re.compile(r"\\verb\*?([^\w\s])[^\n]*?\1")
_GROUP = re.compile(r"\{[^{}\n]*\}|\[[^\[\]\n]*\]|<[^<>\n]*>|`[^`\n]*`")
_ALTERNATIVES = re.compile(r"[{\[][^{}\[\]\n|]*\|[^{}\[\]\n]*[}\]]")
# A grammar's own label line ("Syntax:" over "set history {size <N>} …").
_SYNTAX = re.compile(r"^\s*(?:syntax|synopsis|usage)\s*:", re.IGNORECASE)


def is_grammar(block: Block) -> bool:
    """Whether a block of code is a command's grammar ("Syntax: set history {size <N>}
    {quiet|numbers}"): what the text under it describes, not an example it remarks on."""
    return block.kind == "code" and bool(
        _SYNTAX.match(block.text) or _ALTERNATIVES.search(block.text)
    )


def _outside(line: str) -> str:
    """The line without what its brackets, backticks and ``\\verb`` quotes hold."""
    outside = _VERB.sub("", line)
    while (bare := _GROUP.sub("", outside)) != outside:
        outside = bare
    return outside


def is_table_row(line: str) -> bool:
    """Whether a line is a row of a table: cells parted by bars outside any bracket."""
    outside = _outside(line)
    return outside.count("|") >= 2 or outside.lstrip().startswith("|") or " | " in outside


def table_goes_on(blocks: list[Block], i: int) -> bool:
    """Whether the table ``blocks[i]`` may go on in the lines right under it: they follow it
    without a blank line and do not end a sentence (rows a PDF's reader did not split into
    cells, a cell wrapped onto a line of its own)."""
    if i + 1 >= len(blocks):
        return False
    table, below = blocks[i], blocks[i + 1]
    touching = below.start <= table.start + len(table.text) + 1
    first = below.text.split("\n", 1)[0].rstrip()
    return touching and below.kind in ("paragraph", "code") and not TERMINAL.search(first)


def indent(text: str) -> int:
    """How far a text's first line is indented."""
    return len(text) - len(text.lstrip(" \t"))


def cells(line: str) -> int:
    """How many cells a table row holds."""
    return len(line.strip().strip("|").split("|"))


def header_of(line: str, row: str) -> bool:
    """Whether ``line`` is the header of the table whose first row is ``row``: one title-case
    word per column, without the bars (a PDF's header row set in another font, read as one
    run)."""
    words = line.split()
    return (
        "|" not in line
        and len(words) >= 2
        and len(words) == cells(row)
        and not _is_code(line)
        and title_like(line)
        and all(WORD.fullmatch(w) for w in words)
    )


# Wrapped text: at least this many lines run on into the next one, and a line that ends a
# sentence under this share of their median length ends its paragraph.
_WRAPPED_LINES = 5
_SHORT_LINE = 0.7


@lru_cache(maxsize=64)
def wrap_width(text: str) -> float | None:
    """The width a wrapped text fills: the median length of its prose lines that run on into
    the next line (no sentence ends there); None when it is not wrapped (one line per paragraph,
    as a web page or a Markdown file with long lines is read)."""
    lines = [ln.rstrip() for ln in text.split("\n")]
    full = [
        len(a)
        for a, b in zip(lines, lines[1:], strict=False)
        if b and a and not TERMINAL.search(a) and a[-1] not in ":;," and line_kind(a) == "prose"
    ]
    if len(full) < _WRAPPED_LINES:
        return None
    return float(sorted(full)[len(full) // 2])


def ends_paragraph(block: Block, at: int) -> bool:
    """Whether the sentence of ``block`` ending at ``at`` (an offset into the document) ends
    its paragraph in a wrapped text: it ends its line, well short of the width the text's lines
    fill. A typesetter fills every line of a paragraph but its last, so a short line is where
    the writer ended one, though no blank line says so."""
    if block.width is None:
        return False
    text, end = block.text, at - block.start
    line_end = text.find("\n", end)
    if line_end < 0 or text[end:line_end].strip():
        return False
    line = text[text.rfind("\n", 0, end) + 1 : line_end].rstrip()
    return len(line) < _SHORT_LINE * block.width


def _segments(body: str, start: int) -> list[Block]:
    """One block per run of lines of one kind; a list item takes its wrapped lines along."""
    lines = body.split("\n")
    kinds = _line_kinds(lines)
    out: list[Block] = []
    kind, seg_start, seg = "", 0, ""
    pos = 0
    for line, lk in zip(lines, kinds, strict=True):
        continues = (kind == "item" and lk == "prose" and not _ends_item(seg)) or (
            lk == kind and lk != "item"
        )
        if seg and not continues:
            out.append(Block(_kind(seg, kind), start + seg_start, seg))
            seg = ""
        if not seg:
            kind, seg_start, seg = lk, pos, line
        else:
            seg = f"{seg}\n{line}"
        pos += len(line) + 1
    if seg.strip():
        out.append(Block(_kind(seg, kind), start + seg_start, seg))
    return [b for b in out if b.text.strip()]


# A declaration wrapped over lines (a PDF's function prototype): its first line opens the
# parameter list, the lines up to the one closing it belong to it.
# (A parameter list never opens with an address: "uses GNU libunistring (https://…" wrapped
# over lines is prose.)
_DECLARATION_OPEN = re.compile(
    r"^\s*(?:\[[A-Za-z]+\]\s*)?(?:[A-Za-z_]\w*[\s*]+){1,4}[A-Za-z_]\w*\s*\("
    r"(?!\s*(?:https?|ftp)://|\s*www\.)[^()]*$"
)


_ELISION = re.compile(r"^\s*(?:\.\s?){3,}\s*$|^\s*…\s*$")


def _line_kinds(lines: list[str]) -> list[str]:
    """Each line's kind; a declaration wrapped over lines is code throughout, and so is the
    entry's name on the short line right above it."""
    kinds = [line_kind(ln) for ln in lines]
    fenced = False
    for k, line in enumerate(lines):
        fence = line.lstrip().startswith(("```", "~~~"))
        if fenced or fence:
            kinds[k] = "code"
        if fence:
            fenced = not fenced
    for k, line in enumerate(lines):
        # An elision line ("...") in a listing stands for code left out: it is code.
        near = kinds[k - 1 : k] + kinds[k + 1 : k + 2]
        if _ELISION.match(line) and "code" in near:
            kinds[k] = "code"
    for k in range(len(lines) - 1):
        if (
            kinds[k + 1] == "table"
            and kinds[k] in ("code", "prose")
            and header_of(lines[k], lines[k + 1])
        ):
            kinds[k] = "table"
    i = 0
    while i < len(lines):
        if _DECLARATION_OPEN.search(lines[i]):
            j = i
            while j < len(lines) and ")" not in lines[j] and j - i < 4:
                kinds[j] = "code"
                j += 1
            if j < len(lines):
                kinds[j] = "code"
            above = lines[i - 1].strip() if i else ""
            if above and len(above.split()) <= 5 and not TERMINAL.search(above):
                kinds[i - 1] = "code"
            i = j
        i += 1
    return kinds


def _is_code(line: str) -> bool:
    """A code line: a pattern only code has, or symbols and few words of prose."""
    if _CODE_LINE.search(line) or _DECLARATION.search(line):
        return True
    return len(SYMBOL.findall(line)) >= 2 and len(_PROSE_WORD.findall(line)) < 5


def _ends_item(text: str) -> bool:
    return bool(re.search(r"[.;:!?][\"')\]’”]*\s*$", text))


def _kind(raw: str, lines_are: str) -> str:
    """A block's kind from its lines' kind; a lone title-case line is a heading."""
    if lines_are == "prose":
        if raw.lstrip().startswith("```"):
            return "code"
        lines = [ln for ln in raw.split("\n") if ln.strip()]
        if len(lines) == 1 and LABEL.match(lines[0]):
            return "label"
        if len(lines) == 1 and not TERMINAL.search(lines[0].rstrip(":")) and title_like(lines[0]):
            return "heading"
        return "paragraph"
    return lines_are


def title_like(line: str) -> bool:
    words = WORD.findall(line)
    if not words or len(words) > 14:
        return False
    small = {"a", "an", "the", "of", "and", "or", "in", "on", "for", "to", "with", "by", "at"}
    capital = sum(1 for w in words if w[0].isupper() or w.lower() in small)
    return capital >= 0.8 * len(words)


def prose_share(text: str) -> float:
    """The share of a text's lines that read as prose (not code, tables or fragments)."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if not lines:
        return 0.0
    return sum(1 for ln in lines if line_kind(ln) == "prose") / len(lines)
