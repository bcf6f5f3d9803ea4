"""What restricts a statement: conditional clauses, exceptions, qualifiers, limits and scope.

Each constraint of a source sentence is a phrase with a kind and a cue. A summary keeps a clause
or a scope when it restates most of the clause's words (the cue may be paraphrased: "with data
checksums enabled" keeps "if data checksums are enabled"); it keeps a qualifier or a limit only
with a word of the same group ("up to" keeps "at most"; "usually" keeps "typically").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexer.lint.cues import (
    CONDITIONAL,
    DISCOURSE,
    EXCEPTION,
    HEDGES,
    QUALIFIERS,
    RESTRICTIVE_DETERMINERS,
    SCOPE_PREPOSITIONS,
)
from indexer.lint.quantities import quantities
from indexer.lint.text import Span, content, find_phrase, shared, words

_CLAUSE_END = re.compile(r"[,;:()]|\.(?:\s|$)|\s(?:and|but|so|or)\s(?=[a-z]+\s)|$")
# A conditional clause without a comma ends where the main clause starts: a subject and a modal
# ("If you use the option Memcheck will run more slowly").
_MAIN_CLAUSE = re.compile(
    r"\s(?=(?:the\s+)?[\w-]+\s+(?:will|would|must|should|cannot|can['’]t|won['’]t)\b)",
    re.IGNORECASE,
)
# A conditional that restates the context, not the statement ("if necessary", "if so", "if that
# sounds odd"): nothing of the statement is conditioned on it.
_PRO_FORMS = frozenset(
    ["so", "not", "that", "this", "necessary", "possible", "desired", "needed", "required",
     "applicable", "appropriate", "any", "present"]
)  # fmt: skip
_PHRASE_END = re.compile(r"[,;:()]|\.(?:\s|$)|\s(?:and|but|or|which|that|is|are|was|were)\s|$")
_WORD_AT = re.compile(r"[\w'-]+")
_SWITCHES = frozenset(["on", "off", "enabled", "disabled"])
# Comparatives that are a limit only next to an amount ("below 80 °C", not "see below").
_NEED_AMOUNT = frozenset(["above", "below", "over", "under", "exceeds", "exceed", "beyond"])
_DEGREE = re.compile(r"(?:this|that|so|how|as|too)\s+$", re.IGNORECASE)
_RELATIVE = re.compile(r"(?:,\s*|\()(?:which|who|where)\b|\(", re.IGNORECASE)
_HEDGE_DETERMINERS = frozenset(["many", "some", "most", "certain", "several"])
_HEDGE_GROUPS = frozenset(
    g[0] for g in QUALIFIERS if g[0] in ("usually", "sometimes", "some", "most", "many")
)


@dataclass(frozen=True)
class Constraint:
    """One restriction in a sentence."""

    kind: str  # clause | exception | qualifier | scope
    cue: str
    span: Span
    group: tuple[str, ...] = ()


def _cue_pattern(cues: tuple[str, ...] | list[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(c) for c in sorted(cues, key=len, reverse=True))
    return re.compile(rf"(?<![\w'-])({alternatives})(?![\w'-])", re.IGNORECASE)


_CONDITIONAL_RE = _cue_pattern(CONDITIONAL)
_EXCEPTION_RE = _cue_pattern(EXCEPTION)
_QUALIFIER_RES = [(group, _cue_pattern(group)) for group in QUALIFIERS]
_SCOPE_RE = _cue_pattern(SCOPE_PREPOSITIONS)


def _until(pattern: re.Pattern[str], sentence: str, start: int, limit: int = 90) -> int:
    m = pattern.search(sentence, start)
    end = m.start() if m else len(sentence)
    if end - start > limit:
        cut = sentence.rfind(" ", start, start + limit)
        end = cut if cut > start else start + limit
    return end


def constraints(sentence: str) -> list[Constraint]:
    """The constraints of one sentence, in order, overlapping ones kept once."""
    found: list[Constraint] = []
    for m in _CONDITIONAL_RE.finditer(sentence):
        end = _until(_CLAUSE_END, sentence, m.end() + 1)
        main = _MAIN_CLAUSE.search(sentence, m.end() + 1, end)
        if main and len(words(sentence[m.end() : main.start()])) >= 3:
            end = main.start()
        body = words(sentence[m.end() : end])
        if body and body[0] in _PRO_FORMS and len(body) <= 3:
            continue
        found.append(Constraint("clause", m.group(1).lower(), _span(sentence, m.start(), end)))
    for m in _EXCEPTION_RE.finditer(sentence):
        end = _until(_CLAUSE_END, sentence, m.end() + 1)
        found.append(Constraint("exception", m.group(1).lower(), _span(sentence, m.start(), end)))
    for group, pattern in _QUALIFIER_RES:
        for m in pattern.finditer(sentence):
            cue = m.group(1).lower()
            end = _until(_PHRASE_END, sentence, m.end(), limit=40)
            if cue in _NEED_AMOUNT and not quantities(sentence[m.end() : m.end() + 30]):
                continue
            if cue in ("many", "much") and _DEGREE.search(sentence[: m.start()]):
                continue
            found.append(Constraint("qualifier", cue, _span(sentence, m.start(), end), group))
    found += _scopes(sentence)
    found = [c for c in found if not _in_aside(sentence, c)]
    found.sort(key=lambda c: (c.span.start, -(c.span.end - c.span.start)))
    out: list[Constraint] = []
    for c in found:
        inside = any(
            o.span.start <= c.span.start
            and c.span.end <= o.span.end
            and (o.kind == c.kind or c.span.start < o.span.start + len(o.cue))
            for o in out
        )
        if not inside:
            out.append(c)
    return out


def _scopes(sentence: str) -> list[Constraint]:
    """Prepositional phrases that scope a statement: fronted ones ("On Windows, …"), ones with a
    restrictive determiner ("for each view", "in a particular tablespace"), a proper name ("on
    Linux") or an absolute construction ("with job control in effect")."""
    out: list[Constraint] = []
    for m in _SCOPE_RE.finditer(sentence):
        if any(sentence.lower().startswith(d, m.start()) for d in DISCOURSE):
            continue
        end = _until(_PHRASE_END, sentence, m.end(), limit=60)
        phrase = sentence[m.end() : end]
        tokens = [w for w in _WORD_AT.findall(phrase)]
        if not tokens:
            continue
        fronted = m.start() == 0 and "," in sentence[m.end() : m.end() + 80]
        determiner = any(t.lower() in RESTRICTIVE_DETERMINERS for t in tokens[:3])
        proper = any(t[0].isupper() and any(c.islower() for c in t) for t in tokens[:3])
        state = m.group(1).lower() in ("with", "without") and any(
            t.lower() in ("enabled", "disabled", "on", "off", "set", "effect", "units")
            for t in tokens
        )
        if fronted:  # "For build and test presets, …": the whole phrase up to its comma
            end = sentence.index(",", m.end())
        # A bracketed scope ("(for platforms that support it)") restricts what it follows.
        bracketed = sentence[: m.start()].rstrip().endswith("(")
        if bracketed:
            close = sentence.find(")", m.end())
            end = close if close != -1 else end
        if fronted or determiner or proper or state or bracketed:
            out.append(Constraint("scope", m.group(1).lower(), _span(sentence, m.start(), end)))
    return out


def _in_aside(sentence: str, c: Constraint) -> bool:
    """True inside a parenthesis or a non-restrictive relative clause (", which …"): an aside
    does not restrict the statement the summary restates."""
    lead = 1 if sentence.startswith("(") else 0  # a whole sentence in brackets is no aside
    if sentence[: c.span.start].rstrip().endswith("("):
        return False  # a bracket that opens with the condition ("(unless … is hidden)")
    before = sentence[lead : c.span.start]
    cut = max(before.rfind(";"), before.rfind(". "))
    found = list(_RELATIVE.finditer(before, cut + 1 if cut >= 0 else 0))
    if not found:
        return False
    m = found[-1]
    closing = sentence.find(")", lead + m.end())
    return m.group(0) != "(" or closing == -1 or closing >= c.span.start


def _span(sentence: str, start: int, end: int) -> Span:
    text = sentence[start:end].rstrip(" ,;.")
    return Span(text, start, start + len(text))


def kept(
    constraint: Constraint, summary_sentence: str, nearby: str, source: str | None = None
) -> bool:
    """True when the summary keeps ``constraint`` (see the module doc).

    Args:
        constraint: A constraint of the source sentence.
        summary_sentence: The summary sentence that restates that source sentence.
        nearby: The summary sentence with its neighbours (a paraphrase may move a condition
            into the next sentence).
        source: The source sentence: a condition's words that the rest of it also has
            ("if mmap succeeds" in "… mmap makes files appear …") are its topic, not what the
            condition adds, and do not keep it while its own words ("succeeds") are there.
    """
    if constraint.kind == "qualifier":
        cues = HEDGES if constraint.group[0] in _HEDGE_GROUPS else constraint.group
        return any(find_phrase(summary_sentence, cue) for cue in cues)
    tail = constraint.span.text[len(constraint.cue) :]
    if constraint.kind == "scope" and set(words(tail)[:3]) & _HEDGE_DETERMINERS:
        # "In many scenarios": a hedge, kept by any hedge ("most", "can", "often").
        return any(find_phrase(summary_sentence, cue) for cue in HEDGES)
    body = content(tail) | (_SWITCHES & set(words(tail)))
    have = content(nearby) | (_SWITCHES & set(words(nearby)))
    if source is not None:
        outside = source[: constraint.span.start] + " " + source[constraint.span.end :]
        own = body - content(outside)
        if own and len(own) < len(body):
            body = own
    if len(body) <= 1:
        return bool(shared(body, have)) or any(
            find_phrase(summary_sentence, c) for c in CONDITIONAL
        )
    share = len(shared(body, have)) / len(body)
    if "only" in constraint.cue.split():  # "only if" said as "when" loses the restriction
        only = QUALIFIERS[0]
        return share >= 0.5 and any(find_phrase(summary_sentence, c) for c in only)
    if constraint.kind == "exception":
        equivalents = (*EXCEPTION, "unless", "but not", "only", "not counting")
        cue_kept = any(find_phrase(summary_sentence, c) for c in equivalents)
        return share >= 0.5 and (cue_kept or share >= 0.75)
    return share >= 0.5


def modified(constraint: Constraint, sentence: str) -> set[str]:
    """Content words of what a constraint restricts: the rest of its sentence, or for a
    qualifier the words it governs."""
    if constraint.kind == "qualifier":
        return content(constraint.span.text[len(constraint.cue) :])
    rest = sentence[: constraint.span.start] + " " + sentence[constraint.span.end :]
    return content(rest)


def first_words(text: str, n: int) -> str:
    """The first ``n`` words of ``text`` (for short messages)."""
    return " ".join(words(text)[:n])
