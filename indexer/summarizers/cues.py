"""What a sentence leans on: the cues that decide whether it can stand alone in a summary.

A sentence points back when it opens with a discourse connective, a pronoun or demonstrative
subject, or holds a demonstrative determiner or "the above" anywhere; it points forward when it
announces what follows ("the following", "described below", "Here is"); it is no statement when
it is a question, a pointer ("See …"), navigation (a run of titles), code run into prose or
legal boilerplate. These are closed classes of English and conventions of technical writing.
"""

from __future__ import annotations

import re

from indexer.summarizers.blocks import TERMINAL, WORD
from indexer.summarizers.sentences import strip_markup
from indexer.words import content

# Closed classes: a sentence opening with one of these leans on what came before.
_CONNECTIVES = (
    "however|but|and|or|so|thus|hence|therefore|otherwise|also|moreover|furthermore|"
    "additionally|in addition|instead|similarly|likewise|consequently|as a result|accordingly|"
    "in this case|in that case|in these cases|in such cases|in such a case|in either case|"
    "in both cases|in this way|in that way|for this reason|for that reason|then|finally|still|"
    "nevertheless|nonetheless|conversely|alternatively|besides|meanwhile|again|even so|"
    "that is|in other words|said otherwise|by contrast|on the other hand|on the contrary|"
    "as such|after that|afterwards|before that|at this point|at that point|here|if so|if not|"
    "for example|for instance|e\\.g\\.|i\\.e\\.|namely|unlike this|apart from this|indeed|"
    "in fact|in particular|specifically|in short|in summary|that said|in turn|as noted|"
    "as mentioned|as explained|as shown|as described above|as seen|as you can see|"
    "as we have seen|as can be seen|as you saw|as we saw"
)

# "Now" going on with a running example ("Now let us print the report two-sided.", "Now that
# the server runs, …"), not "now" as in "at present".
_NARRATIVE_NOW = r"now(?=\s*,|\s+(?:let|let's|let’s|we|you|that)\b)"
_BACK_START = re.compile(rf"^(?:{_CONNECTIVES}|{_NARRATIVE_NOW})\b", re.IGNORECASE)
# "Here are the rules …:" presents what follows; "Here, …" is the case just described.
_PRESENTATIVE = re.compile(r"^here\s+(?:is|are)\b", re.IGNORECASE)

_PRONOUN_START = re.compile(
    r"^(?:it|its|they|their|them|he|she|his|her|both|neither|either|each of these|"
    r"the latter|the former|the same|such|this|that|these|those|there|other|another|"
    r"the other|the others|others|the rest|the remaining|the first two|the last two|the next|"
    # a part of a set named before ("Each of the commands has …"), not "most of the time"
    r"(?:each|all|none|some|any|several|many|few)\s+of\s+(?:the|these|those|them)"
    r"(?!\s+(?:time|following)\b))\b",
    re.IGNORECASE,
)

# "This chapter describes …" names the node itself, not a neighbour.
_SELF_REFERENCE = re.compile(
    r"^(?:this|these)\s+(?:page|pages|chapter|section|sections|manual|document|guide|"
    r"appendix|part|tutorial|book|handbook|reference|specification|note|faq|howto|article|"
    r"text|file|module|package|library|program|tool|utility|command|function|release|edition|"
    r"version|site|document's)\b",
    re.IGNORECASE,
)

# "It is possible to …", "There are two …": no antecedent.
_EXPLETIVE = re.compile(
    r"^(?:it\s+(?:is|was|may be|can be|might be|will be|would be|should be|has been|seems|"
    r"appears)\s+(?:not\s+)?(?:(?:also|often|usually|generally|therefore|always)\s+)?"
    r"(?:possible|impossible|necessary|unnecessary|recommended|important|advisable|inadvisable|"
    r"best|better|useful|safe|unsafe|common|easy|difficult|hard|sufficient|enough|likely|"
    r"unlikely|essential|required|a good idea|good practice|customary|wise|permissible|legal|"
    r"an error|[a-z]+ed that)\b|"
    r"there\s+(?:is|are|was|were|exist|exists|may be|can be|will be|might be|must be|should be)\b)",
    re.IGNORECASE,
)

_BACK_ANYWHERE = re.compile(
    r"\b(?:the above|above-mentioned|aforementioned|the preceding|the previous|the former|"
    r"the latter|(?:described|mentioned|shown|listed|given|explained|defined|discussed)\s+"
    r"(?:above|earlier|previously|before)|as above|same as before|"
    r"(?:the|this|that|these|those)\s+(?:[\w-]+\s+){0,2}above(?!\s*[\d$%])|"
    # one of alternatives named before by its place ("the second type of dynamic linking")
    r"the\s+(?:first|second|third|fourth|last)\s+(?:type|kind|case|sort|approach|"
    r"method|variant|category|alternative|possibility)s?|"
    # a verb phrase's pro-form: what is done is said before
    r"(?:do|does|did|doing|done)\s+so)\b",
    re.IGNORECASE,
)

# A demonstrative determiner anywhere ("under this configuration", "in this fashion") points
# back, unless it names the document itself ("in this manual"); "such as" is no determiner.
_DEMONSTRATIVE = re.compile(r"\b(?:this|these|those|such)\s+(?!as\b|that\b)([a-z][\w-]*)", re.I)

# "That" as a determiner or pronoun after a preposition ("from that revision", "at that point",
# "before that") points back; "so that", "such that", "in that", "except that" are conjunctions
# and "that of" stands for a noun of the same sentence. "The same …" without "as" names
# something said before ("in the same directory"); so does "the other …" (below).
_ANAPHORIC = re.compile(
    r"\b(?:of|to|from|for|with|on|at|by|into|onto|under|after|before|about|over|through|"
    r"within|without|against|per|like|since|until|during|beyond|across|along|behind|upon|"
    r"throughout|toward|towards)\s+that\b(?!\s+(?:of|which|is|are|was|were)\b)|"
    r"\bthe\s+same\b(?![^.;:]*\bas\b)|"
    r"^(?:in|on|at|for|with|from|by)\s+(?:all\s+)?other\s+(?!words\b)|"
    # a connective set off by commas inside the sentence ("If, however, …", "…, though.")
    r",\s*(?:however|therefore|thus|hence|consequently|instead|nevertheless|nonetheless|"
    r"moreover|furthermore|likewise|similarly|in turn|as a result|in this case|in that case|"
    r"in addition|by contrast|in contrast|again|though|then|too)\s*[,.;]",
    re.IGNORECASE,
)

# "The other …" names the second of two said before, unless the sentence itself said "one" of
# them first ("Two callbacks can be called: one for input data, the other when …").
_THE_OTHER = re.compile(r"\bthe\s+other\b", re.IGNORECASE)
_ONE = re.compile(r"\bone\b", re.IGNORECASE)

# Nouns whose content the text before supplies ("The problem is …", "the answer is simple",
# "the word might appear …"), unless the same phrase says what it is ("the problem of …").
_SHELL_NOUN = re.compile(
    r"\bthe\s+(?:problem|answer|solution|reason|idea|trick|difference|word|question|issue|"
    r"catch|workaround|drawback|advantage|downside|benefit|point|situation|scenario)\b"
    r"(?!\s+(?:of|with|that|to|for|between|in|here)\b)",
    re.IGNORECASE,
)
# A demonstrative standing alone ("to do this,", "use that."), and a condition without its
# subject ("If omitted, …", "When set, …"): what they speak of is said before.
# Before the colon ending a lead-in, "this" points at what the colon introduces ("… like this:").
_BARE_DEMONSTRATIVE = re.compile(r"\b(?:this|these|those)\s*(?:[,.;)]|:(?!\s*$))", re.IGNORECASE)
_ELLIPTIC_CONDITION = re.compile(
    r"^(?:if|when|unless|once|where)\s+(?:not\s+)?(?:omitted|given|specified|set|unset|"
    r"present|absent|missing|empty|enabled|disabled|used|supplied|provided|true|false|zero|"
    r"non-?zero|negative|positive|defined|undefined|called|invoked)\b",
    re.IGNORECASE,
)
# "They", "them", "their" with no plural noun before them in the sentence point back.
_PLURAL_PRONOUN = re.compile(r"\b(?:they|them|their|theirs|themselves)\b", re.IGNORECASE)
# A correlative conjunction coordinates two nouns into one ("If either revision or age are
# omitted, they default to 0").
_PLURAL_NOUN = re.compile(
    r"\b[a-z][\w-]*[a-rt-z]s\b|\b(?:both|all|several|many|two|three|either|neither)\b", re.I
)
# A statement in the first person singular is a correspondent's question or the author's aside
# ("I need the fancy style …", "I am now retired"), not a statement of the subject.
_FIRST_PERSON = re.compile(
    r"(?:^|[\s,;(])(?:I\s+(?!/)|I['’](?:m|ve|d|ll)\b)|\b(?:my|me|myself)\b|^My\b"
)
# A lead-in that counts what it introduces ("Two variables are always set:", "four parts: …"),
# in words as prose counts things; a figure is a quantity ("for 20 seconds: the pump ran dry").
_COUNTED = re.compile(
    r"\b(two|three|four|five|six|seven|eight|nine|ten)\s+(?:[\w-]+\s+){0,2}?"
    r"[a-z][\w-]*s\b[^:]*:",
    re.IGNORECASE,
)
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_NUMBERS.update({"nine": 9, "ten": 10})


def announced(sentence: str) -> int | None:
    """How many things a lead-in says it introduces ("Two variables are always set:"), if it
    counts them."""
    m = _COUNTED.search(strip_markup(sentence))
    if m is None:
        return None
    return _NUMBERS[m.group(1).lower()]


def enumerates_fewer(sentence: str) -> bool:
    """Whether a sentence counting what follows its colon names fewer after it ("This document
    contains four parts: Part I is …" and the other parts in the sentences after it)."""
    count = announced(sentence)
    if count is None:
        return False
    rest = strip_markup(sentence).split(":", 1)[1]
    if not rest.strip():
        return False  # a lead-in: taken with what follows it, or not at all
    parts = 1 + len(re.findall(r"[,;]|\band\b|\bor\b", rest))
    return parts < count


_NOT_PLURAL = frozenset(
    [
        "is",
        "was",
        "has",
        "does",
        "this",
        "its",
        "thus",
        "us",
        "always",
        "unless",
        "less",
        "yes",
        "his",
        "as",
        "plus",
        "perhaps",
        "whereas",
        "besides",
        "news",
        "process",
        "access",
        "class",
        "bus",
        "alias",
        "status",
    ]
)


def _plural_pronoun_back(s: str) -> bool:
    m = _PLURAL_PRONOUN.search(s)
    if m is None:
        return False
    before = (w.group(0).lower() for w in _PLURAL_NOUN.finditer(s[: m.start()]))
    return all(w in _NOT_PLURAL for w in before)


# "Lines 3-8: …", "Line 5 replaces …": a statement about the lines of a listing the summary
# does not hold.
_LISTING_LINES = re.compile(r"^lines?\s+\d+", re.IGNORECASE)

# A licence calls itself "this License", capitalized as the term it defines (the GPL, the FDL,
# the Apache License): inside one, it names the text itself.
_LICENCE_ITSELF = re.compile(r"^(?:This|this)\s+Licen[cs]e\b")
_SELF_NOUNS = frozenset(
    ["page", "pages", "chapter", "section", "sections", "manual", "document", "guide"]
    + ["appendix", "part", "tutorial", "book", "handbook", "reference", "specification", "text"]
)

# An unqualified definite subject of a generic noun ("The default is system-dependent.", "Each
# line starts with …") is the default, the line, of something said before.
_GENERIC_SUBJECT = re.compile(
    r"^(?:the|each|every)\s+(?:default|value|result|output|return value|return status|"
    r"exit status|file|command|function|option|argument|parameter|variable|entry|line|format|"
    r"name|field|item|record|column|row|string|key|setting)s?\s+(?:is|are|was|were|can|may|"
    r"must|will|should|defaults|contains|holds|specifies|starts|begins|ends|has|have|consists)\b",
    re.IGNORECASE,
)
# A pronoun subject right after a subordinating conjunction: "Although these were written …".
_SUBORDINATE_PRONOUN = re.compile(
    r"^(?:although|though|while|when|whenever|if|because|since|as|unless|whereas|after|"
    r"before|once|until)\s+(?:it|its|they|their|these|those|this|that|he|she)\b",
    re.IGNORECASE,
)

# "Here" and "below" after a verb of presenting ("We give here …", "listed here") or opening
# the sentence ("Below are …") point at what follows, as "the following" does.
_FORWARD = re.compile(
    r"^(?:here|below)\s+(?:is|are)\b|\b(?:the following|as follows|(?:described|shown|listed|"
    r"given|explained|discussed|illustrated)\s+(?:below|later|in the next)|see below|"
    r"(?:the|these|those)\s+(?:[\w-]+\s+){0,2}below|(?:give|gives|list|lists|listed|"
    r"describe|describes|show|shows|present|presents|summarize|summarizes|collect|collects)"
    r"\s+here)\b|\bbelow\s*[.:]|"
    # a question put in the reader's mouth, which the text goes on to answer
    r"^(?:you|one)\s+(?:might|may|could|will)\s+(?:well\s+)?(?:ask|wonder)(?:\s+yourself)?"
    r"\s+(?:how|why|what|whether|if|when|where|which|who)\b",
    re.IGNORECASE,
)

# A sentence about where something is said, not about the subject ("… are not listed in
# /etc/network/interfaces" says what is so, not where it is said).
_META = re.compile(
    r"\b(?:is|are|was|were|will be)\s+(?:(?!not\b)\w+\s+)?(?:described|explained|covered|discussed|"
    r"documented|detailed|listed|shown|presented|treated)\s+(?:in|on|at|below|above|later|"
    r"elsewhere|under|separately)\b|\b(?:in|on) (?:the |a |an )?(?:following|next|previous|"
    r"preceding|earlier|later) (?:sections?|chapters?|pages?)\b",
    re.IGNORECASE,
)

_POINTER = re.compile(
    r"^\(?(?:see|refer to|for (?:more|further|additional) (?:information|details)|for details|"
    r"more information|cf\.|read more|back to|next:|previous:|up:|home\b|contents\b|"
    r"table of contents|go to)",
    re.IGNORECASE,
)

_BOILERPLATE = re.compile(
    r"permission is granted|free documentation license|gnu general public license|"
    r"copyright\s*(?:©|\(c\)|\d{4})|all rights reserved|without any warranty|"
    r"this (?:manual|document|file) is (?:free|licensed)|invariant sections|"
    r"last (?:updated|modified|changed)\s*:?|generated by|site map|this page was generated",
    re.IGNORECASE,
)


# A page reference: "[asn1 decode], page 22", "see page 4", and a contents or index line's
# dot leader ("Added LPPL license clause . . . . 70"; spaced dots, not an ellipsis "...").
_XREF = re.compile(
    r"\],?\s+(?:page|p\.)\s*\d+|\bsee\s+(?:page|p\.)\s*\d+|(?:\.\s){2,}\.\s*\d+\b|(?:\.\s){3,}\.",
    re.IGNORECASE,
)
# A contents or index line split at its leader: the entry ends in spaced dots ("Added LPPL
# license clause. . ."), the next sentence opens with the page number alone on its line.
_LEADER_END = re.compile(r"(?:\s\.){2,}\s*$")
# A footnote as a PDF's text holds it: its mark run into its first word ("8Based upon an idea
# by …"), set at the page's foot, away from the sentence it notes.
_FOOTNOTE = re.compile(r"^\d{1,2}[A-Z][a-z]{2,}")
_HORTATIVE = re.compile(r"^now\s*,?\s+let(?:'s|’s|\s+us)\b", re.IGNORECASE)
_PAGE_FIRST = re.compile(r"^\s*\d{1,4}[ \t]*\n")
_LETTERS = re.compile(r"[A-Za-z0-9]")
_INTERNAL_MACRO = re.compile(r"\\[A-Za-z]*@")
_CODE_SYMBOL = re.compile(r"[{}=<>$\\*&|^~]|::|->|\(\)|\[[A-Z][a-z]+\]")
# A TeX command named in prose, with a short argument ("\citet*", "\bibliographystyle{bst}"):
# the name of an entry, as "--pid" or "free()" is, not code run into the sentence. A name with
# an "@" is a package's internal macro ("\f@nch@for"), its implementation: code.
_COMMAND_NAME = re.compile(r"\\[A-Za-z]+\*?(?![@\w])(?:\[[^\]\s]{0,24}\])?(?:\{[\w.*:-]{0,32}\})?")


def _code_run_in(s: str) -> bool:
    """Whether code runs into the sentence (a prototype, an assignment, a line of a listing),
    rather than the sentence naming a few identifiers ("call prepare_revision_walk(), then
    get_revision()", "--build=... and --host=...", "root (id = 0) is …"): any code beside a TeX
    package's internal macro, operators standing alone, a word dense with code symbols, or code
    symbols in more than a quarter of its words."""
    words = _COMMAND_NAME.sub("x", s).split()
    marks = [len(_CODE_SYMBOL.findall(w)) for w in words]
    if sum(marks) < 2:
        return False
    if _INTERNAL_MACRO.search(s):
        return True  # a package's implementation, as its internal names say
    alone = sum(1 for w, n in zip(words, marks, strict=True) if n and not _LETTERS.search(w))
    coded = sum(1 for n in marks if n)
    return alone >= 2 or max(marks) >= 2 or 4 * coded > len(words)


def is_pointer(sentence: str) -> bool:
    """Whether the sentence points at another page or part ("See gitattributes(5).", "For more
    information, see Cross compiling.")."""
    s = strip_markup(sentence)
    return bool(_POINTER.match(s)) or cross_reference(s)


def cross_reference(text: str) -> bool:
    """Whether the text points at a page of the manual ("[asn1 decode], page 22")."""
    return _XREF.search(strip_markup(text)) is not None


def points_forward(sentence: str) -> bool:
    """Whether the sentence points at text after it ("described below", "the following …"
    without its own colon and what follows it)."""
    s = strip_markup(sentence)  # a sentence wrapped over lines ("are as\nfollows.")
    m = _FORWARD.search(s)
    if m is None or is_lead_in(s):
        return False
    colon = s.find(":", m.end())
    return colon < 0 or len(s) - colon < 4


def leans_back(sentence: str) -> bool:
    """Whether the sentence points back at something said before it."""
    s = strip_markup(sentence)
    if _BACK_ANYWHERE.search(s) or _ANAPHORIC.search(s) or _SHELL_NOUN.search(s):
        return True
    other = _THE_OTHER.search(s)
    if other is not None and not _ONE.search(s[: other.start()]):
        return True
    if _BARE_DEMONSTRATIVE.search(s) or _ELLIPTIC_CONDITION.match(s) or _plural_pronoun_back(s):
        return True
    if _SUBORDINATE_PRONOUN.match(s) or _GENERIC_SUBJECT.match(s):
        return True
    if _SELF_REFERENCE.match(s) or _LICENCE_ITSELF.match(s):
        return False  # says what the document itself covers: its "this …" stays inside it
    if _BACK_START.match(s) and not _PRESENTATIVE.match(s):
        return True
    if _PRONOUN_START.match(s) and not _EXPLETIVE.match(s):
        return True
    return any(
        m.group(1).lower() not in _SELF_NOUNS and not _LICENCE_ITSELF.match(m.group(0))
        for m in _DEMONSTRATIVE.finditer(s)
    )


_DEFINITE = re.compile(r"^(?:the|each|both)\s+((?:[\w-]+\s+){0,2}[\w-]+)", re.IGNORECASE)


def refers_to(sentence: str, previous: str) -> bool:
    """Whether a definite subject ("The restore …", "The value …") names something the
    previous sentence introduced: a definite description pointing back at it."""
    m = _DEFINITE.match(strip_markup(sentence))
    if m is None:
        return False
    return bool(content(m.group(1)) & content(previous))


def is_lead_in(sentence: str) -> bool:
    return sentence.rstrip().endswith(":")


# An identifier may open a sentence in lower case ("asn1Parser reads …", "dnssec-keygen …").
_IDENTIFIER_START = re.compile(r"^[a-z][\w.]*[A-Z0-9_.-][\w.-]*\s")


def complete(sentence: str) -> bool:
    """A whole sentence: a capital, a figure or an identifier first, a sentence end last, enough
    words."""
    s = strip_markup(sentence)
    # A sentence may open with a code span ("`root` is the default user"): its markup says so.
    first = opens(s) or sentence.lstrip().startswith("`")
    return first and bool(TERMINAL.search(s)) and len(WORD.findall(s)) >= 4


def opens(sentence: str) -> bool:
    """Whether the text opens as a sentence does: a capital, a figure, a quote or an identifier
    (not the lower-case rest of a sentence whose start is code or another block)."""
    s = sentence.lstrip()
    return bool(s) and (
        s[0].isupper() or s[0].isdigit() or s[0] in "\"'(“‘`" or bool(_IDENTIFIER_START.match(s))
    )


def quotable(sentence: str) -> bool:
    """A statement a summary may quote: complete prose, not navigation or boilerplate."""
    s = strip_markup(sentence)
    lead_in = s.rstrip().endswith(":") and opens(s) and len(WORD.findall(s)) >= 3
    if not (complete(sentence) or lead_in):
        return False
    if s.rstrip("\"')]’” ").endswith("?"):
        return False  # a question (a menu entry, a FAQ title) states nothing
    if _LISTING_LINES.match(s) or _FIRST_PERSON.search(s) or enumerates_fewer(s):
        return False
    if s.count("|") >= 2 or _POINTER.match(s) or _META.search(s) or _BOILERPLATE.search(s):
        return False
    if cross_reference(s) or _LEADER_END.search(s) or _PAGE_FIRST.match(sentence):
        return False  # a cross-reference to a page ("[asn1 decode], page 22"), a contents line
    if _FOOTNOTE.match(s):
        return False  # a footnote: it speaks of the place its mark stands, elsewhere
    if _HORTATIVE.match(s):
        return False  # the writer walking on through an example ("Now let us print …")
    if _code_run_in(s):
        return False
    words = WORD.findall(s)
    if len(words) >= 6:
        capital = sum(1 for w in words[1:] if w[0].isupper())
        if capital > 0.6 * (len(words) - 1):
            return False  # a run of titles: a menu, breadcrumbs, a contents line
    return len(s) <= 700
