"""Entries of reference text: the term a line names for the paragraph below it.

A definition list ("blank" over "A space or tab character."), a command's synopsis
("enable [-a] [-dnps] [-f filename] [name …]") or a function's prototype over its description:
the paragraph describes the entry and names it nowhere, so a summary quotes it after the entry's
name. An option listed under a command's entry is that command's option ("bind -X").
"""

from __future__ import annotations

import re

from indexer.summarizers.blocks import SYMBOL, TERMINAL, WORD, Block, blocks_of
from indexer.summarizers.cues import leans_back
from indexer.summarizers.sentences import Piece, strip_markup

_NOT_TERMS = frozenset(["or", "and", "the", "a", "an", "of", "to", "in", "example", "examples"])
# An operator or a special character named as an entry ("!", "!!", "!-n", "$?", "^"): one to
# three marks, a word after them or not, alone on its line as text. One mark repeated ("***",
# "---", "?") is a separator or a stray glyph, not a term.
_SYMBOL_TERM = re.compile(r"^(?!([*=_~#?.+:-])\1*$)[!$^&%@#?*+<>|=~:-]{1,3}[\w-]{0,12}$")
_OPENERS = re.compile(
    r"^(?:note|for example|for instance|in|as|this|that|these|here|see|when|where|to|"
    r"then|now|also)\b",
    re.IGNORECASE,
)


def marks(block: Block) -> bool:
    """Whether a line names its entry by marks ("!", "$?", "&>>word"), not by a word or as an
    option ("-o")."""
    text = block.text.strip()
    return _SYMBOL_TERM.match(text) is not None and not _is_option(text)


# What may follow a term in parentheses: a key ("forward-word (M-f)") or the name of its
# environment variable ("max_size (CCACHE_MAXSIZE)"). A term may be set in quotes ("‘pass_all’").
_ALIAS = re.compile(r"\s*\((?:[\w -]{0,12}|[A-Z][A-Z0-9_]{2,40})\)$")
_QUOTED = re.compile(r"^[‘'\"“`]([^‘’'\"“”`]+)[’'\"”`]$")


def is_term(block: Block) -> bool:
    """A short single line, no sentence and no code: the term of a definition list (a trailing
    parenthesis, as in "forward-word (M-f)", is part of it)."""
    text = block.text.strip()
    if "\n" in text or block.kind not in ("heading", "paragraph", "code") or not block.alone:
        return False  # (a short line inside a block is a wrapped line's end, not a term)
    bare = _ALIAS.sub("", text.rstrip("¶ ").rstrip(":"))
    bare = _QUOTED.sub(r"\1", bare)
    if _SYMBOL_TERM.match(bare):
        return True
    words = WORD.findall(bare)
    if bare.lower() in _NOT_TERMS or not re.match(r"[A-Za-z0-9%-]", bare):
        return False
    if re.search(r"[@,;()\[\]…]|\.\.\.", bare):
        return False  # a synopsis fragment, an author line, a date line: not a term
    return 0 < len(words) <= 5 and not TERMINAL.search(bare) and not SYMBOL.search(bare)


# A declared function: its type, then its name before its parameter list, at a line's start.
_PROTOTYPE = re.compile(
    r"^\s*(?:\[[A-Za-z]+\]\s*)?(?:[A-Za-z_]\w*[\s*]+){1,4}([A-Za-z_][\w.-]*)\s*\("
    r"(?!\s*(?:https?|ftp)://|\s*www\.)",
    re.M,
)
_CALLED = re.compile(r"([A-Za-z_][\w.-]*)\s*\(")
_COMMAND = re.compile(r"^\s*(?:[A-Za-z][\w.:-]*:\s+)?(-{0,2}[A-Za-z_][\w.-]*)")


def term_of(block: Block, below: Block) -> Piece | None:
    """The term a line names for the paragraph below it: the line itself when it is a term,
    or the name a synopsis line declares (the function before its parenthesis, the command
    before its options) when the paragraph describes it (does not open as a remark)."""
    defined = _definition(block)
    if defined is not None:
        return defined  # "This function …" below a definition speaks of what it defines
    if is_term(block):
        return term_piece(block)
    declared = _PROTOTYPE.search(block.text) if block.kind == "code" else None
    if not (block.alone or declared) or _OPENERS.match(below.text.lstrip()):
        return None
    if declared is not None:
        start = block.start + declared.start(1)
        return Piece(declared.group(1), start, start + len(declared.group(1)))
    text = block.text
    if block.kind == "paragraph" and not re.search(r"[\[(<]|\s-", text):
        return None
    lines = [ln for ln in text.strip().split("\n") if ln.strip()]
    if block.kind not in ("code", "paragraph", "heading") or not lines:
        return None
    if len(lines) > 1:
        aliases = _aliases(block, lines)
        if aliases is not None:
            return aliases
        # The forms of one command, a line each ("history -c", "history -d offset", …).
        heads = {ln.split()[0] for ln in lines}
        if len(heads) != 1 or len(lines) > 6:
            return None
        text = lines[0]
    said = re.sub(r"\s*\[\d+\]$", "", text.strip())  # a footnote's mark after the sentence
    if TERMINAL.search(said) or len(text) > 200 or text.rstrip().endswith(";"):
        return None  # a sentence, or a statement of code (a call), not a synopsis
    if not re.search(r"[\[(<]|\s-", text):
        return None  # a synopsis has arguments, options or a parameter list
    if _INVOCATION.search(re.sub(r"\[[^\]]*\]", "", text)):
        return None  # a command line to run (a variable, a pipe), an example: no synopsis
    called = _CALLED.search(text)
    m = called if called is not None else _COMMAND.match(text)
    if m is None:
        return None
    name = m.group(1)
    if len(name) > 60 or name.lower() in ("function", "macro", "type", "variable"):
        return None
    start = block.start + block.text.index(text) + m.start(1)
    return Piece(name, start, start + len(name))


# A definition line as Texinfo writes it, "Category: declaration" in HTML and
# "[Category]declaration" in print: "Function: int lt_dladderror (const char *diagnostic)",
# "[Global flag]idn2_flags IDN2_NFC_INPUT", "Variable: const lt_dlsymlist lt_preloaded_symbols[]".
_DEFINITION = re.compile(
    r"^[ \t]*(?:\[(?P<tag>[A-Za-z][A-Za-z ]{0,30})\][ \t]*|"
    r"(?P<category>(?:[A-Z][a-z]+ ){0,2}[A-Z][a-z]+):[ \t]+)(?P<decl>[A-Za-z_].*)$",
    re.M,
)
_CATEGORIES = frozenset(
    ["function", "macro", "variable", "command", "form", "option", "type", "constant", "method"]
    + ["class", "flag", "builtin", "hook", "procedure", "operator", "field", "member", "enum"]
    + ["structure", "struct", "typedef", "keyword"]
)
# Words of a C declaration before its name: the name of a variable is its last word.
_DECLARATION_WORDS = frozenset(
    ["const", "volatile", "static", "extern", "struct", "union", "enum", "unsigned", "signed"]
    + ["int", "char", "long", "short", "void", "double", "float"]
)
_TYPED = frozenset(["variable", "constant", "flag", "field", "member"])
_NAME = re.compile(r"[A-Za-z_][\w.-]*")
_INVOCATION = re.compile(r"\$[A-Za-z_{(]|&&|\s\|\s|;\s")


def _definition(block: Block) -> Piece | None:
    """The name a definition line declares; the names of several, one entry described
    together ("Builtin: include (file)" over "Builtin: sinclude (file)")."""
    if block.kind not in ("paragraph", "code", "heading") or block.text.count("\n") > 3:
        return None
    found = [p for m in _DEFINITION.finditer(block.text) if (p := _declared(block, m))]
    if len({p.text for p in found}) != len(found) or not found:
        return None
    if len(found) == 1:
        return found[0]
    return Piece(", ".join(p.text for p in found), found[0].start, found[-1].end)


def _declared(block: Block, m: re.Match[str]) -> Piece | None:
    """The function before its parameter list, the last word of a typed variable or
    constant, else the first word after the category."""
    category = (m.group("tag") or m.group("category")).split()[-1].lower()
    if m.group("category") and category not in _CATEGORIES:
        return None  # "Note: …", "Default: …": a label, not a definition
    decl = re.sub(r"\[[^\]]*\]", lambda x: " " * len(x.group()), m.group("decl"))
    called = _CALLED.search(decl)
    if called is not None:
        at, name = called.start(1), called.group(1)
    else:
        words = [w for w in _NAME.finditer(decl) if w.group() not in _DECLARATION_WORDS]
        if not words:
            return None
        # a type's name before a constant's ("[Return code]idn2_rc IDN2_OK")
        constant = len(words) == 2 and words[-1].group().isupper()
        typed = category in _TYPED or constant or len(words) < len(_NAME.findall(decl))
        word = words[-1] if typed else words[0]
        at, name = word.start(), word.group()
    start = block.start + m.start("decl") + at
    return Piece(name, start, start + len(name))


_OPTION_FORM = re.compile(r"^\s*(-{1,2}[A-Za-z][\w-]*)(?:[ =\[][^\s,;]*)?\s*$")
_MAX_ALIASES = 3


def _aliases(block: Block, lines: list[str]) -> Piece | None:
    """One entry under several names, a line each: the forms of one option ("-F file" over
    "--freeze-state=file") or macros described together ("include (file)" over
    "sinclude (file)", whose paragraph says "Both macros …"). The term names them all: under
    the first name alone, "Both macros" would read as one."""
    if len(lines) > _MAX_ALIASES:
        return None
    options = [m.group(1) if (m := _OPTION_FORM.match(ln)) else None for ln in lines]
    if all(options):
        names = [o for o in options if o]
    else:
        found = [_CALLED.search(ln) for ln in lines]
        if not all(found) or any(TERMINAL.search(ln.strip()) for ln in lines):
            return None
        names = [m.group(1) for m in found if m]
    if len(set(names)) < len(names) or len(names) < 2:
        return None
    first = block.start + block.text.index(names[0])
    last = block.start + block.text.rindex(names[-1]) + len(names[-1])
    return Piece(", ".join(names), first, last)


def nested(found: Piece, command: Piece | None) -> tuple[tuple[Piece, ...], Piece | None]:
    """The term path of an entry and the command that options below it belong to: an option
    ("-X", "--norc") listed under a command's entry is that command's option ("bind -X")."""
    if _is_option(found.text):
        return ((command, found) if command is not None else (found,)), command
    return (found,), found


def _is_option(term: str) -> bool:
    """An option or a format of the command above ("-X", "--norc", "%d"); a mark alone ("%",
    the word designator) is an entry of its own."""
    return re.match(r"[-%][\w-]", term) is not None


def term_text(term: tuple[Piece, ...]) -> str:
    return " ".join(strip_markup(t.text) for t in term)


def entries_of(runs: list[tuple[int, str]]) -> list[Piece]:
    """The entries a node's own text describes one after another (the terms of a definition
    list, the commands or functions of a reference), in order, each once."""
    out: dict[str, Piece] = {}
    for run_start, text in runs:
        blocks = blocks_of(text, run_start)
        for block, below in zip(blocks, blocks[1:], strict=False):
            found = term_of(block, below) if below.kind == "paragraph" else None
            if found is not None and not _is_option(found.text):
                out.setdefault(found.text, found)
    return list(out.values())


def term_piece(block: Block) -> Piece:
    raw = block.text
    text = raw.strip().rstrip("¶ ").rstrip(":").strip()
    start = block.start + raw.index(text)
    return Piece(text, start, start + len(text))


_ENTRY_KIND = (
    r"(?:option|variable|setting|parameter|directive|function|command|macro|flag|keyword|"
    r"field|constant|hook|property|attribute|test group)\b"
)
# "This option …", "The variable …": a description of an entry of that kind.
_ENTRY_SUBJECT = re.compile(rf"^(?:this|the)\s+{_ENTRY_KIND}", re.IGNORECASE)
_ENTRY_NAMED = re.compile(rf"\bthis\s+{_ENTRY_KIND}", re.IGNORECASE)


def declares_entry(block: Block) -> bool:
    """A line naming an entry: a definition list's term, a definition line ("Function: int
    lt_dlseterror (int errorcode)")."""
    return is_term(block) or _definition(block) is not None


def names_its_entry(sentence: str) -> bool:
    """Whether a sentence under an entry's term is said of that entry: "This option …", "The
    variable …", or "this function" inside it ("If the allocation fails, this function returns
    -1") and no other word pointing back."""
    s = strip_markup(sentence)
    if _ENTRY_SUBJECT.match(s):
        return True
    return bool(_ENTRY_NAMED.search(s)) and not leans_back(_ENTRY_NAMED.sub("X", s))
