"""Negations in both directions, each with the words it governs.

A negation governs the words that follow it in its clause ("does not *keep track of heap
blocks*"); its **scope** is their content words. A summary may say a negation differently
("unless" for "if … does not", "except" for "but not", "without", a negative adjective such as
"unsuitable" for "should not be used") or in another sentence than the one that restates the
negated clause (a condensed summary merges and splits sentences), so:

- **dropped**: a negated clause of a restated source sentence whose restatement, anywhere in the
  summary, carries no negation (or fewer than the source's two);
- **added**: a negation of the summary that no negation of the source governs the same words
  with (by shared words or, through the static vectors, by meaning), while some source clause
  restates the summary clause without one.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from indexer.lint.align import Candidate
from indexer.lint.cues import IMPLICIT_NEGATIONS, NEGATION_IDIOMS, NEGATIONS
from indexer.lint.flags import LintFlag
from indexer.lint.text import Span, clauses, content, shared, words

_NEGATION = re.compile(
    r"(?<![\w'’=-])(?:"
    + "|".join(re.escape(n) for n in sorted(NEGATIONS, key=len, reverse=True) if n != "n't")
    + r")(?![\w'’-])|n['’]t\b",
    re.IGNORECASE,
)
_IMPLICIT = re.compile(
    r"(?<![\w'-])(?:"
    + "|".join(re.escape(w) for w in sorted(IMPLICIT_NEGATIONS, key=len, reverse=True))
    + r")(?![\w'-])",
    re.IGNORECASE,
)
# What restates a negation without a negation word: "unless X" is "if not X", "except" is
# "but not", "instead of"/"rather than" deny their object.
_EQUIVALENTS = re.compile(r"\b(?:unless|except|instead of|rather than)\b", re.IGNORECASE)
_NEGATIVE_AFFIX = re.compile(r"\b(?:un|non-?)[a-z]{4,}\b", re.IGNORECASE)
_NON = re.compile(r"\bnon-[a-z]{3,}\b", re.IGNORECASE)
_BACK = re.compile(r"\b(?:this|that|the case|so)\b", re.IGNORECASE)
SCOPE_WORDS = 5  # words after a negation that it governs
BEFORE_WORDS = 3  # and before it
BROAD_SCOPE = SCOPE_WORDS + BEFORE_WORDS  # more words than a negation's own window holds
SIMILAR_SCOPE = 0.6  # cosine of two scopes that say the same thing (static vectors)

Encode = Callable[[list[str]], np.ndarray]


# "No longer than a line", "not later than noon": a comparative limit, not a negation.
_LIMIT = re.compile(r"\b(?:no|not)\s+(?:more|less|fewer|[a-z]{2,}er)\s+than\b", re.IGNORECASE)


# What denies without a negation word: negative affixes ("inadvisable", "unsupported",
# "symbol-less", "non-zero"), "other than", "rather than", "instead", "except", "but not".
_POLAR = re.compile(
    r"\b(?:un|in|im)[a-z]{3,}(?:able|ible)\b|\bun[a-z]{3,}ed\b"
    r"|\b[a-z]{3,}-less\b|\b(?!unless\b)[a-z]{3,}less\b|\bnon-?[a-z]{3,}\b"
    r"|\b(?:other than|rather than|instead|except|but not)\b",
    re.IGNORECASE,
)
_NOT_POLAR = frozenset(
    [
        "regardless",
        "nevertheless",
        "nonetheless",
        "unless",
        "uncommented",
        "united",
        "unified",
        "untitled",
        "impeccable",
        "invisible",
    ]
)


def polar(text: str, governed: set[str], source: str) -> bool:
    """True when ``text`` denies what ``governed`` names: a negation or a negative word, affix
    or equivalent ("inadvisable", "symbol-less", "other than", "instead") within a few words
    of one of those words; a negative word the ``source`` clause has too ("turning fsync
    off") restates that word, not the clause's negation."""
    own = set(words(source))
    cues = [*explicit(text), *(c for c in _implicit(text) if c.text.lower() not in own)]
    cues += [
        Span(m.group(0), m.start(), m.end())
        for m in _POLAR.finditer(text) if m.group(0).lower() not in _NOT_POLAR
    ]  # fmt: skip
    return any(shared(_around(text, c), governed) for c in cues) or _affixed(text, governed)


_PREFIXES = ("non-", "non", "un", "in", "im", "il", "ir", "dis")


def _affixed(text: str, governed: set[str]) -> bool:
    """True when ``text`` has a negative prefix on a word the negation governs: "unset" for
    "not set", "invalid" for "not valid", "non-None" for "not None"."""
    for w in words(text):
        for p in _PREFIXES:
            base = w[len(p) :]
            if w.startswith(p) and len(base) >= 3 and content(base) & governed:
                return True
    return False


def _around(text: str, cue: Span, n: int = 5) -> set[str]:
    return content(" ".join(words(text[: cue.start])[-n:] + words(text[cue.start :])[: n + 1]))


def _cleaned(text: str) -> str:
    """``text`` with the idioms that do not negate ("no more than") blanked, offsets kept."""
    for idiom in NEGATION_IDIOMS:
        text = re.sub(rf"\b{re.escape(idiom)}\b", lambda m: " " * len(m.group(0)), text, flags=re.I)
    return _LIMIT.sub(lambda m: " " * len(m.group(0)), text)


def negations_in(text: str) -> tuple[int, Span | None]:
    """How many negations ``text`` has (words like "refuses" count), and the first one."""
    cleaned = _cleaned(text)
    found = [Span(m.group(0), m.start(), m.end()) for m in _NEGATION.finditer(cleaned)]
    starts = {f.start for f in found}
    found += [
        Span(m.group(0), m.start(), m.end())
        for m in _IMPLICIT.finditer(cleaned) if m.start() not in starts
    ]  # fmt: skip
    first = min(found, key=lambda s: s.start) if found else None
    return len(found), first


# "no" as a value ("set it to no", "relative to =no", "yes or no"), not a determiner.
_VALUE_NO = re.compile(r"\s*(?:[,.;:)]|$|(?:and|or|is|as|to|for|in)\b)", re.IGNORECASE)


def explicit(text: str) -> list[Span]:
    """The negation words of ``text`` ("not", "never", "without", …; idioms and option values
    such as "=none" or "against no" left out)."""
    cleaned = _cleaned(text)
    out = []
    for m in _NEGATION.finditer(cleaned):
        if m.group(0).lower() == "no" and _VALUE_NO.match(cleaned, m.end()):
            continue
        out.append(Span(text[m.start() : m.end()], m.start(), m.end()))
    return out


def _aside(text: str, cue: Span) -> bool:
    """True inside brackets: an aside does not carry the statement a summary restates. A
    clause may begin inside a bracket that closes in it: that ")" opens nothing later."""
    depth = 0
    for ch in text[: cue.start]:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
    return depth > 0


def _piece(text: str, cue: Span) -> tuple[str, str]:
    """The words before and after a cue within its phrase (up to a comma or a bracket)."""
    cuts = [m.end() for m in re.finditer(r"[,;:()]", text[: cue.start])]
    stop = re.search(r"[,;:()]", text[cue.end :])
    after = text[cue.end : cue.end + stop.start()] if stop else text[cue.end :]
    return text[cuts[-1] if cuts else 0 : cue.start], after


def scope(text: str, cue: Span) -> set[str]:
    """The content words a negation governs: the next few words of its phrase, and the few
    before it (a negation after its verb: "turned off", "left disabled"). A negation that
    governs a word or none refers to its context ("but this is no longer the case"): the whole
    sentence."""
    found = _window(text, cue)
    return found if len(found) > 1 else content(text)


def _window(text: str, cue: Span) -> set[str]:
    before, after = _piece(text, cue)
    return content(" ".join(words(before)[-BEFORE_WORDS:] + words(after)[:SCOPE_WORDS]))


def _units(sentence: str) -> list[Span]:
    """The clauses of a source sentence to check one by one; a clause whose negation refers
    back ("but this is no longer the case") is checked with the whole sentence."""
    parts = clauses(sentence)
    if any(
        len(_window(k.text, n)) <= 1 and _BACK.search(k.text)
        for k in parts for n in explicit(k.text)
    ):  # fmt: skip
        return [Span(sentence, 0, len(sentence))]
    return parts


def _restates_negation(clause: str, negated: str, whole: str, source: set[str]) -> int:
    """How many negations of a summary clause govern words of the negated source clause,
    counting what restates one without a negation word (an equivalent cue, or a negative word
    the source never uses); a word like "off" that the source clause has too restates that
    word, not the clause's negation."""
    theirs = content(negated)
    own = set(words(negated))
    cues = [*explicit(clause), *(c for c in _implicit(clause) if c.text.lower() not in own)]
    cues += [Span(m.group(0), m.start(), m.end()) for m in _EQUIVALENTS.finditer(clause)]
    cues += [
        Span(m.group(0), m.start(), m.end())
        for m in _NEGATIVE_AFFIX.finditer(clause)
        if m.group(0).lower() not in whole
    ]
    # A negation counts when it governs words of the source clause, or words the source does
    # not use at all (a paraphrase: "not given" for "not specified"), not words of another
    # source statement ("turning fsync off" beside "without the risk").
    return sum(
        1 for c in cues if shared(scope(clause, c), theirs) or not shared(scope(clause, c), source)
    )


def _implicit(text: str) -> list[Span]:
    cleaned = _cleaned(text)
    return [
        Span(text[m.start() : m.end()], m.start(), m.end()) for m in _IMPLICIT.finditer(cleaned)
    ]


def _contrastive(text: str, cue: Span) -> bool:
    """True for the "not" of "A, not B": it denies an alternative, and a summary that states A
    alone keeps the meaning."""
    return cue.text.lower() == "not" and re.search(r",\s*$", text[: cue.start]) is not None


def _overlap(a: str, b: str) -> int:
    return len(content(a) & content(b))


def dropped(
    sent: Span, restated: list[Candidate], summary: list[Span], whole_source: str
) -> list[LintFlag]:
    """Negated source clauses the summary restates without a negation (see the module doc)."""
    out: list[LintFlag] = []
    mine = clauses(sent.text)
    everywhere = [k for s in summary for k in clauses(s.text)]
    lowered = whole_source.lower()
    every = content(whole_source)
    for c in restated[:2]:
        for theirs in _units(c.source.text):
            _, cue = negations_in(theirs.text)
            needed = [
                n for n in explicit(theirs.text)
                if not _contrastive(theirs.text, n) and not _aside(theirs.text, n)
            ]  # fmt: skip
            need = len(needed)
            best = max((_overlap(m.text, theirs.text) for m in mine), default=0)
            if not need or cue is None or best < 2:
                continue
            # Its restatements: this sentence's clauses, and any clause of the summary that
            # restates it as closely (a condensed summary moves a clause to another sentence).
            here = " ".join(m.text for m in mine if _overlap(m.text, theirs.text) >= 2)
            # A summary that restates the clause's other words but none of those a negation
            # governs restates another statement of the clause, not the negated one; each
            # negation is needed only where the words it governs are restated.
            needed = [
                n for n in needed
                if not _window(theirs.text, n) or shared(_window(theirs.text, n), content(here))
            ]  # fmt: skip
            need = len(needed)
            if not need:
                continue
            governed = set().union(*(_window(theirs.text, n) for n in needed))
            elsewhere = [k.text for k in everywhere if _overlap(k.text, theirs.text) >= best]
            have = max(
                _restates_negation(m, theirs.text, lowered, every) for m in [here, *elsewhere]
            )
            if have == 0 and need == 1 and polar(here, governed, theirs.text):
                continue  # said by a word of its own ("inadvisable", "symbol-less", "other than")
            if have == 0 or (need >= 2 and have < need):
                msg = f"the source says {cue.text!r}; the summary does not"
                out.append(
                    LintFlag(
                        "negation", msg, sent.text, c.source.text,
                        summary_quote=None, source_quote=theirs.text, rule="negation.dropped",
                    )
                )  # fmt: skip
    return out


def added(sent: Span, source: list[Span], encode: Encode | None) -> list[LintFlag]:
    """Negations of the summary sentence that no negation of the source governs the words of,
    where some source clause restates the summary clause (module doc). A source negation
    supports one when it governs one of the same words, wherever it stands in the source (a
    condensed summary gathers statements from several sentences), or the same meaning through
    the static vectors."""
    out: list[LintFlag] = []
    pool = [(k, s.text) for s in source for k in clauses(s.text)]
    # What the source denies supports the summary saying so: its negation words (asides
    # included: a bracketed remark is still the source's word), the equivalents ("rather
    # than", "instead of") and negative affixes ("non-matching" for "does not match").
    # An aside's negation that governs no words of its own ("it would be difficult not to")
    # refers to the aside, not to the whole sentence.
    negated = [
        (_source_scope(k.text, cue, text), _cancelled(k.text, cue))
        for k, text in pool for cue in _denials(k.text)
    ]  # fmt: skip
    used: set[int] = set()
    for clause in clauses(sent.text):
        words_c = content(clause.text)
        need = 2 if len(words_c) > 3 else 1
        close = [(k, s) for k, s in pool if len(content(k.text) & words_c) >= need]
        if not close:
            continue
        # One source denial supports one negation of the sentence ("non-matching" is no
        # licence for a second "cannot" beside "does not match"); negations that govern words
        # of their own are matched before those that fall back to the whole sentence.
        cues = sorted(explicit(clause.text), key=lambda c: len(_window(clause.text, c)) <= 1)
        for cue in cues:
            found = _governed(
                scope(clause.text, cue), _cancelled(clause.text, cue), negated, encode, used
            )
            if found is not None:
                used.add(found)
                continue
            best = max(close, key=lambda ks: len(content(ks[0].text) & words_c))
            msg = f"the summary says {cue.text!r}; the source does not"
            out.append(
                LintFlag(
                    "negation",
                    msg,
                    sent.text,
                    best[1],
                    summary_quote=cue.text,
                    source_quote=None,
                    rule="negation.added",
                )
            )
            break
    return out


def _source_scope(clause: str, cue: Span, sentence: str) -> set[str]:
    """What a source denial governs: an aside's own words; a negation that refers back ("but
    this is no longer the case") governs its whole sentence, not the clause it ends."""
    if _aside(clause, cue):
        return _window(clause, cue)
    if len(_window(clause, cue)) <= 1 and _BACK.search(clause):
        return content(sentence)
    return scope(clause, cue)


def _denials(clause: str) -> list[Span]:
    """Everything in a source clause that denies: negation words, equivalents, affixes."""
    found = explicit(clause)
    found += [Span(m.group(0), m.start(), m.end()) for m in _EQUIVALENTS.finditer(clause)]
    found += [Span(m.group(0), m.start(), m.end()) for m in _NON.finditer(clause)]
    return found


# Words between a negation and the verb it denies ("is not yet disabled", "must not be left").
_BEFORE_VERB = frozenset(
    [
        "be", "been", "being", "get", "gets", "got", "have", "has", "had", "left", "kept",
        "always", "ever", "yet", "even", "fully", "simply", "actually", "necessarily",
        "really", "currently",
    ]
)  # fmt: skip


def _cancelled(clause: str, cue: Span) -> bool:
    """True when a negation denies the negative word it governs ("does not skip" affirms); a
    negative word further on belongs to another phrase ("does not justify turning it off")."""
    _, after = _piece(clause, cue)
    governed = [w for w in words(after)[:SCOPE_WORDS] if w not in _BEFORE_VERB][:1]
    return bool(governed) and _IMPLICIT.fullmatch(governed[0]) is not None


def _governed(
    mine: set[str],
    cancelled: bool,
    negated: list[tuple[set[str], bool]],
    encode: Encode | None,
    used: set[int],
) -> int | None:
    """The index of a source negation (not yet ``used``) that governs what the summary's
    negation governs and denies as it does (a "not skip" is no "not evaluated"); None when
    there is none."""
    free = [(i, n) for i, n in enumerate(negated) if n[1] == cancelled and i not in used]
    if not mine:
        return free[0][0] if free else None
    # The closest first; a scope that is a whole sentence (a negation referring back) shares
    # words by its size, so it comes after scopes of a negation's own words.
    ranked = sorted(free, key=lambda n: (len(n[1][0]) > BROAD_SCOPE, -len(shared(mine, n[1][0]))))
    for i, (theirs, _) in ranked:
        if theirs and shared(mine, theirs):
            return i
    if encode is None or not free:
        return None
    vecs = encode([" ".join(sorted(mine)), *(" ".join(sorted(n[0])) for _, n in free)])
    sims = vecs[1:] @ vecs[0]
    best = int(np.argmax(sims))
    return free[best][0] if sims[best] >= SIMILAR_SCOPE else None
