"""The lint: each summary sentence against the source sentences it restates.

For every summary sentence the aligner (:mod:`indexer.lint.align`) finds the source sentences it
restates; the pair is then compared on what constrains a statement:

- ``condition``: a conditional clause, exception, qualifier, limit or scope of the source
  sentence that the summary sentence restates without (:mod:`indexer.lint.conditions`);
- ``negation``: a negated source clause restated without its negation, or a negation the
  summary adds to a clause the source states positively;
- ``number``: a quantity of the summary that the source does not state, with its unit compared
  (:mod:`indexer.lint.quantities`), or a changed code;
- ``absolute``: an absolute ("always", "all", "completely", …) that the restated source
  sentences do not support with a word of the same group.

What the summarizer itself adds (the "Contents: …; and N more." outline line) is not checked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from indexer.lint.align import Candidate, align
from indexer.lint.certainty import hedged_to_certain
from indexer.lint.conditions import Constraint, constraints, kept, modified
from indexer.lint.cues import ABSOLUTES, CHECKED_ABSOLUTES
from indexer.lint.decide import Candidate as Proposal
from indexer.lint.decide import Decider, SummarySpans, default_decider
from indexer.lint.flags import LintFlag
from indexer.lint.negation import added, dropped
from indexer.lint.polarity import flipped
from indexer.lint.quantities import (
    Quantity,
    bare_units,
    codes,
    matches,
    nearest,
    ordinals,
    quantities,
)
from indexer.lint.standalone import dropped_restrictions
from indexer.lint.text import (
    Span,
    clauses,
    content,
    find_phrase,
    sentences,
    shared,
    source_sentences,
    stem,
    words,
)
from indexer.lint.vectors import SentenceVectors

RESTATES = 0.5  # a pair scoring this much is a restatement
SUPPORTS = 0.35  # source sentences scoring this much may support an absolute
_OUTLINE = re.compile(r"^Contents: .*?(?:; and \d+ more)?\.$")
# A sentence that names topics ("How to replace the seals.") states no rule to weaken.
_OVERVIEW = re.compile(
    r"^(?:how to|covers|describes|explains|lists|overview|about|this (?:section|chapter|part|"
    r"manual|document|page)|the (?:section|chapter|part|manual|document|page) (?:covers|"
    r"describes|explains|lists))\b",
    re.IGNORECASE,
)
# A hedge after a negation ("not necessarily", "not always") or before an absolute ("almost
# always", "mostly"): what it qualifies is no absolute claim.
_HEDGED = re.compile(
    r"\s+(?:necessarily|always|all|every|quite|entirely|completely|fully|guaranteed)\b", re.I
)
_HEDGE_BEFORE = re.compile(
    r"\b(?:almost|nearly|mostly|mainly|largely|normally|usually|generally|typically|often|"
    r"virtually|practically|not)\s+(?:\w+\s+)?$",
    re.IGNORECASE,
)
# What makes "any" existential before it in its clause: a condition or a comparison; after a
# negation it is a universal negative.
_EXISTENTIAL = re.compile(r"\b(?:if|whether|unless|before|than)\b", re.IGNORECASE)
_NEGATED = re.compile(
    r"\b(?:not|no|never|without|lacks?|lacking|neither|nor|cannot|refuses?|fails?)\b|n['’]t\b",
    re.IGNORECASE,
)
_MARKUP = re.compile(r"`|\*\*|__")
_OUTLINE_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)*\.?\s+")
_NOT_ABSOLUTE = re.compile(r"\b(?:at all|any of|if any|any more|all of the above)\b", re.I)


@dataclass(frozen=True)
class _Context:
    summary: str
    source: list[Span]
    quantities: list[Quantity]
    codes: set[str]
    units: set[tuple[str, float]]


def is_addition(sentence: str) -> bool:
    """True for a line the summarizer writes itself (the outline of a chapter's contents)."""
    return _OUTLINE.match(sentence) is not None


def lint_summary(
    summary: str,
    sources: Sequence[str],
    *,
    labels: Sequence[str] = (),
    vectors: SentenceVectors | None = None,
    decider: Decider | None = None,
) -> list[LintFlag]:
    """Flags for ``summary`` given the texts it was written from (passages, child summaries).

    Args:
        summary: The summary text.
        sources: Everything the summary was written from.
        labels: What names those texts (headings, child titles, defined terms): they support
            the summary's names, numbers and words, but state nothing a summary must restate,
            and their outline numbers ("20.5.1.") are no quantities.
        vectors: Sentence vectors for alignment by meaning (None: by shared words only).
        decider: Decides each candidate condition flag (default: the shipped model).

    Returns:
        The flags, most serious kinds first; empty when nothing was found.
    """
    # The source's sentences as the summarizer quotes them (wrapped lines joined); the
    # summary's lines are its own.
    source = [s for text in sources for s in source_sentences(text)]
    joined = "\n".join([*sources, *(_OUTLINE_NUMBER.sub("", label) for label in labels)])
    ctx = _Context(summary, source, quantities(joined), codes(joined), bare_units(joined))
    verbatim = _plain(joined)
    # A sentence quoted word for word from the source is faithful by construction.
    said = [
        s for s in sentences(summary)
        if not is_addition(s.text) and _plain(s.text) not in verbatim
    ]  # fmt: skip
    whole = " ".join(s.text for s in sentences(summary) if not is_addition(s.text))
    decide = _Decide(decider or default_decider(), SummarySpans(whole, vectors), whole)
    alignments = align(said, source, vectors)
    flags: list[LintFlag] = dropped_restrictions(
        said, alignments, source, whole, decide.spans.similarity, RESTATES
    )
    for i, (sent, candidates) in enumerate(zip(said, alignments, strict=True)):
        restated = [c for c in candidates if _restated(c, sent.text)]
        nearby = " ".join(s.text for s in said[max(0, i - 1) : i + 2])
        flags += _numbers(sent, candidates, ctx)
        if _OVERVIEW.match(sent.text):
            restated = []
        flags += _conditions(sent, restated, nearby, decide)
        flags += dropped(sent, restated, said, joined)
        near = [c.source.text for c in candidates if c.score >= SUPPORTS]
        flags += added(sent, source, vectors.vectors if vectors is not None else None)
        flags += flipped(sent, candidates, supports=SUPPORTS)
        flags += _absolutes(sent, candidates, ctx)
        flags += hedged_to_certain(sent, near[:2])
    order = {"condition": 0, "negation": 1, "number": 2, "absolute": 3}
    unique = {(f.kind, f.summary_text, f.summary_quote): f for f in flags}
    return sorted(unique.values(), key=lambda f: order.get(f.kind, 9))


def _plain(text: str) -> str:
    """``text`` as words: white space collapsed, and the inline code and bold marks a quote
    may drop ("with `docker run --network none`" quoted as "with docker run --network none")."""
    return " ".join(_MARKUP.sub("", text).split())


def _restated(c: Candidate, sentence: str) -> bool:
    """True when the summary sentence restates the candidate source sentence: aligned well,
    or aligned loosely and stating one of its amounts (a condensed sentence merges several
    source sentences, each aligned less well; a shared amount anchors them)."""
    if c.score >= RESTATES:
        return True
    if c.score < SUPPORTS:
        return False
    theirs = quantities(c.source.text)
    return any(q.value not in (0, 1) and matches(q, theirs) for q in quantities(sentence))


def _numbers(sent: Span, candidates: list[Candidate], ctx: _Context) -> list[LintFlag]:
    out: list[LintFlag] = []
    best = candidates[0].source.text if candidates else None
    for q in quantities(sent.text):
        if matches(q, ctx.quantities):
            continue
        near = None
        for c in candidates:
            near = nearest(q, quantities(c.source.text))
            if near is not None:
                best = c.source.text
                break
        said = f"the source says {near.text!r}" if near else "the source has no such number"
        out.append(
            LintFlag(
                "number", f"{q.text!r}: {said}", sent.text, best,
                summary_quote=q.text, source_quote=near.text if near else None,
                rule="number.changed" if near else "number.absent",
            )
        )  # fmt: skip
    for unit, (dim, factor) in bare_units(sent.text, with_names=True).items():
        if any(f.summary_quote and unit in f.summary_quote for f in out):
            continue  # already part of a flagged quantity
        if (dim, factor) not in ctx.units and any(d == dim for d, _ in ctx.units):
            out.append(
                LintFlag(
                    "number", f"{unit!r}: the source gives this in other units", sent.text, best,
                    summary_quote=unit, source_quote=None, rule="number.unit",
                )
            )  # fmt: skip
    out += _positions(sent, candidates)
    for code in codes(sent.text) - ctx.codes:
        quote = find_phrase(sent.text, code)
        out.append(
            LintFlag(
                "number", f"{code!r} does not occur in the source", sent.text, best,
                summary_quote=quote.text if quote else code, rule="number.code",
            )
        )  # fmt: skip
    return out


def _positions(sent: Span, candidates: list[Candidate]) -> list[LintFlag]:
    """An ordinal the restated source sentences do not use where they use another about the
    same words ("the first process" said as "the last process")."""
    support = [c.source.text for c in candidates if c.score >= SUPPORTS]
    theirs = [(text, o) for text in support for o in ordinals(text)]
    out: list[LintFlag] = []
    for word, start, end in ordinals(sent.text):
        if any(o[0] == word for _, o in theirs):
            continue
        near = _window(sent.text, start, end)
        other = next(((text, o) for text, o in theirs if near & _window(text, o[1], o[2])), None)
        if other is None:
            continue
        text, (said, a, b) = other
        out.append(
            LintFlag(
                "number", f"{word!r}: the source says {said!r}", sent.text, text,
                summary_quote=sent.text[start:end], source_quote=text[a:b],
                rule="number.position",
            )
        )  # fmt: skip
    return out


@dataclass(frozen=True)
class _Decide:
    decider: Decider
    spans: SummarySpans
    summary: str


def _conditions(
    sent: Span, restated: list[Candidate], nearby: str, decide: _Decide
) -> list[LintFlag]:
    out: list[LintFlag] = []
    have = content(sent.text)
    for rank, cand in enumerate(restated[:2]):
        src = cand.source.text
        for c in constraints(src):
            if c.kind == "qualifier" and _absolute_in(sent.text):
                continue  # a hedge turned into an absolute is the absolute's flag
            share, restates = _restates(c, src, have)
            proposal = Proposal(
                c, src, sent.text, nearby, decide.summary, cand.score, cand.lexical, rank,
                share, restates, kept(c, sent.text, nearby, src),
            )  # fmt: skip
            if not decide.decider.keep(proposal, decide.spans):
                continue
            out.append(
                LintFlag(
                    "condition", f"the source says {c.span.text!r}; the summary does not",
                    sent.text, src, summary_quote=None, source_quote=c.span.text,
                    rule=f"condition.{c.kind}",
                )
            )  # fmt: skip
    return out


def _restates(c: Constraint, source: str, have: set[str]) -> tuple[float, bool]:
    """The share of what ``c`` restricts that the summary sentence restates, and whether it is
    enough to call it a restatement."""
    target = modified(c, source)
    if c.kind == "qualifier" and target:
        share = len(shared(target, have)) / len(target)
        return share, share >= 0.5
    # A fronted scope ("On Windows, …") covers the whole sentence, other constraints (and a
    # qualifier that governs no words of its own: "by default") their clause.
    inner = (k for k in clauses(source) if k.start <= c.span.start < k.end)
    clause = source if c.span.start == 0 else next(inner, Span(source, 0, len(source))).text
    if c.kind == "qualifier":
        rest = content(clause.replace(c.span.text, " "))
    else:
        rest = modified(c, clause) if clause != source else target
    rest -= content(c.span.text)
    same = shared(rest, have)
    share = len(same) / max(1, len(rest))
    return share, len(same) >= min(2, len(rest)) and share >= 0.4


def _absolutes_in(text: str) -> list[Span]:
    cleaned = _NOT_ABSOLUTE.sub(lambda m: " " * len(m.group(0)), text)
    out: list[Span] = []
    for word in CHECKED_ABSOLUTES:
        for m in re.finditer(rf"(?<![\w'-]){re.escape(word)}(?![\w'-])", cleaned, re.I):
            if word == "any" and _EXISTENTIAL.search(_clause_before(cleaned, m.start())):
                continue  # "if any file is given", "faster than any other": some, not every
            if _HEDGE_BEFORE.search(cleaned[: m.start()]) or _HEDGED.match(cleaned, m.end()):
                continue  # "almost always", "not all": a hedge, not an absolute
            if not any(o.start <= m.start() < o.end for o in out):
                out.append(Span(text[m.start() : m.end()], m.start(), m.end()))
    return out


def _group(found: Span, sentence: str) -> tuple[str, ...]:
    """The absolute group of ``found``: a negated "any" ("does not hold for any other SDK",
    "lacking any notion") is a universal negative, supported by "no", "never", "not"."""
    word = found.text.lower()
    if word == "any" and _NEGATED.search(_clause_before(sentence, found.start)):
        word = "not any"
    return next(g for g in ABSOLUTES if word in g)


def _clause_before(text: str, start: int) -> str:
    """The words of ``start``'s clause before it."""
    cut = max(text.rfind(p, 0, start) for p in ",;:(")
    return text[cut + 1 : start]


def _absolute_in(text: str) -> Span | None:
    found = _absolutes_in(text)
    return found[0] if found else None


def _window(text: str, start: int, end: int, n: int = 4) -> set[str]:
    """Stemmed content words within ``n`` words before and after a span."""
    before = [w for w in words(text[:start]) if len(w) > 2][-n:]
    after = [w for w in words(text[end:]) if len(w) > 2][:n]
    return {stem(w) for w in before + after} & content(text)


def _word_pattern(word: str) -> str:
    """The word as a whole word; "not" also as a contraction ("doesn't", "don’t"): the same
    negation, so a source's "doesn't require any" supports a summary's negated "any"."""
    whole = rf"(?<![\w'-]){re.escape(word)}(?![\w'-])"
    return rf"{whole}|n['’]t(?![\w'-])" if word == "not" else whole


def _supported(found: Span, sentence: str, support: list[str], *, strict: bool = False) -> bool:
    """True when a source sentence uses a word of the absolute's group about the same thing
    (one of the words around it; two with ``strict``, for sentences the summary sentence is not
    aligned with)."""
    group = _group(found, sentence)
    near = _window(sentence, found.start, found.end)
    need = min(2, len(near)) if strict else 1
    for text in support:
        for word in group:
            for m in re.finditer(_word_pattern(word), text, re.I):
                if _HEDGED.match(text, m.end()) or _HEDGE_BEFORE.search(text[: m.start()]):
                    continue  # "not necessarily", "almost always": a hedge supports no absolute
                if not near or len(near & _window(text, m.start(), m.end())) >= need:
                    return True
    return False


def _absolutes(sent: Span, candidates: list[Candidate], ctx: _Context) -> list[LintFlag]:
    out: list[LintFlag] = []
    support = [c.source.text for c in candidates if c.score >= SUPPORTS]
    best = candidates[0].source.text if candidates else None
    for found in _absolutes_in(sent.text):
        # The restated sentences first; any source sentence may support it about the same
        # words (a condensed summary restates several sentences in one).
        if _supported(found, sent.text, support or [s.text for s in ctx.source]):
            continue
        if support and _supported(found, sent.text, [s.text for s in ctx.source], strict=True):
            continue
        out.append(
            LintFlag(
                "absolute", f"{found.text!r} is not supported by the source it restates",
                sent.text, best, summary_quote=found.text, source_quote=None,
                rule="absolute.unsupported",
            )
        )  # fmt: skip
    return out
