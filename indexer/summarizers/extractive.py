"""The offline default summarizer: sourced sentences of the source, never invented statements.

A node with sections below it (a chapter, the document, a section with subsections) is
summarized as a technical writer would: what it is about (its own opening statement), then what
it covers part by part — each part by its heading and the part's own lead statement, with a key
fact where the length allows — and the parts left over named by their headings. A node without
sections (a leaf section, a cluster) is summarized by its key statements: the opening statement,
the sentences that state values, defaults, limits and rules, and the most central of the rest.

Every quoted statement is a self-contained unit of the source (:mod:`indexer.summarizers.units`)
and carries the exact spans it was taken from; a part line carries its heading's span and its
lead's spans. Units are scored by position (technical writing states the topic first),
overlap with the heading, key facts (:mod:`indexer.summarizers.facts`) and centrality (mean TF-IDF
cosine similarity to the node's other units), and picked greedily with maximal marginal
relevance within the length budget, then put back in document order. TF-IDF rather than sentence
embeddings: embedding every sentence would roughly double the build's dominant cost.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from indexer.sourced import SourcedSentence
from indexer.summarizers.base import ChildSummary, SummarizerIdentity, SummaryRequest, SummaryResult
from indexer.summarizers.dialogue import is_dialogue
from indexer.summarizers.facts import fact_weight
from indexer.summarizers.fingerprint import code_fingerprint
from indexer.summarizers.framing import (
    ALSO_COVERS,
    COVERS,
    MORE_ITEMS,
    NO_STATEMENT,
    NOT_SUMMARIZED,
    PART_COVERS,
)
from indexer.summarizers.openings import only_statement, opening_of
from indexer.summarizers.sentences import Piece, strip_markup
from indexer.summarizers.terms import entries_of
from indexer.summarizers.units import Unit, listing, units_of
from indexer.tokens import count_tokens
from indexer.words import content

# v4: a sentence leaning back goes on from the paragraph before. The version also carries a
# fingerprint of the summarizer's own code, so a changed rule never reuses a summary (and its
# spans) written by the old one.
PROMPT_VERSION = f"extractive-v8+{code_fingerprint()}"
_MMR_LAMBDA = 0.7
_OUTLINE_FACTOR = 2  # a node with parts gets twice the budget of a leaf section
_MAX_PART_LEAD = 60  # tokens: a longer lead does not make a part line
_MAX_NAMED = 10
_REFERENCE = 4  # a node describing this many entries one after another is a reference
_CUT_CODE = re.compile(r"` and \d+ more lines\.$")
# Back matter: a summary names these parts and quotes none of them.
_BACK_MATTER = {
    "an index": re.compile(r"\b(?:index|indexes|indices)\b", re.IGNORECASE),
    "a licence text": re.compile(r"\b(?:licen[cs]e|copying|copyright)\b", re.IGNORECASE),
    "a list of references": re.compile(r"\b(?:bibliography|references)\b", re.IGNORECASE),
    "a list of credits": re.compile(
        r"\b(?:colophon|acknowledge?ments?|authors|contributors)\b", re.IGNORECASE
    ),
}


def back_matter(title: str) -> str | None:
    """What kind of back matter a heading names (an index, a licence …), or None."""
    return next((kind for kind, p in _BACK_MATTER.items() if p.search(title)), None)


_NUMBERING = re.compile(
    r"^\s*(?:(?:chapter|section|appendix|part)\s+)?(?:\d+|[A-Z]|[IVX]+)(?:\.\d+)*\.?\s+(?=\S)",
    re.IGNORECASE,
)


class ExtractiveSummarizer:
    """Sourced, self-contained statements of the source, up to a token budget."""

    def __init__(self, *, max_tokens: int = 200, prompt_version: str = PROMPT_VERSION) -> None:
        self.max_tokens = max_tokens
        self.identity = SummarizerIdentity("extractive", "sourced-units", prompt_version)

    async def summarize(self, requests: Sequence[SummaryRequest]) -> list[SummaryResult]:
        return [self.summarize_one(r) for r in requests]

    def summarize_one(self, request: SummaryRequest) -> SummaryResult:
        """Summarize one node synchronously."""
        units = units_of(request.own_text(), dialogue=is_dialogue(request.passages))
        kind = back_matter(request.title or "") if request.level != "document" else None
        if kind is not None:
            sentences = _back_matter(request, units, kind)
        elif request.children:
            sentences = _outline(request, units, self.max_tokens * _OUTLINE_FACTOR)
        else:
            sentences = _statements(request, units, self.max_tokens)
        if not sentences:
            sentences = [_no_statement(request)]
        n_in = sum(count_tokens(p) for p in request.passages) + sum(
            count_tokens(c.text) for c in request.children
        )
        result = SummaryResult.of_sentences(request.key, sentences, input_tokens=n_in)
        result.output_tokens = count_tokens(result.text or "")
        return result


def _back_matter(request: SummaryRequest, units: list[Unit], kind: str) -> list[SourcedSentence]:
    """An index or a licence is named, never quoted clause by clause (its clauses out of
    context mislead): what it is, its opening statement, and its parts by name."""
    title = _bare(request.title or "")
    spans: tuple[tuple[int, int], ...] = (request.heading,) if request.heading else ()
    spans = spans or tuple((s, s + len(t)) for s, t in request.own_text()[:1])
    # A licence whose every line sits in its parts: what it is rests on the parts' headings,
    # else on the spans of their summaries.
    spans = spans or tuple(c.heading for c in request.children if c.heading)
    spans = spans or tuple(p for c in request.children for s in c.sentences for p in s.spans)
    out = [SourcedSentence(f"{title}: {kind}, {NOT_SUMMARIZED}.", spans, "outline")]
    opening = next(
        (u for u in units if u.first and u.opens and count_tokens(u.text) <= _MAX_PART_LEAD), None
    )
    if opening is not None:
        out.append(SourcedSentence(opening.text, opening.spans, "lead"))
    named = [c for c in request.children if c.title]
    if named:
        heads = tuple(c.heading for c in named if c.heading)
        out.append(
            SourcedSentence(f"{COVERS} {_names([c.title for c in named])}.", heads, "outline")
        )
    return out


def _kind(unit: Unit, lead: bool) -> str:
    if lead:
        return "lead"
    return "fact" if fact_weight(unit.text) else "statement"


def _statements(request: SummaryRequest, units: list[Unit], budget: int) -> list[SourcedSentence]:
    """A leaf's summary: its opening statement, key facts and central statements. A node of
    reference entries (a definition list, commands, functions) names its entries and quotes
    only what says which entry it is about."""
    units = [u for u in units if count_tokens(u.text) <= budget]
    whole = [u for u in units if not _CUT_CODE.search(u.text)]
    units = whole or units  # a command quoted by its first line only when nothing else is
    out: list[SourcedSentence] = []
    entries = entries_of(request.own_text())
    if len(entries) >= (2 if request.level == "cluster" else _REFERENCE):
        opening = next((u for u in units if u.first and u.opens and u.term is None), None)
        if opening is not None:
            out.append(SourcedSentence(opening.text, opening.spans, "lead"))
        names = _names([e.text for e in entries])
        out.append(
            SourcedSentence(
                f"{COVERS} {names}.",
                tuple((e.start, e.end) for e in entries[:_MAX_NAMED]),
                "outline",
            )
        )
        budget -= sum(count_tokens(s.text) for s in out)
        units = [u for u in units if u.term is not None]
    if not units:
        return out
    chosen = _select(units, _scores(request, units), budget)
    picked: list[SourcedSentence] = []
    for i in sorted(chosen):
        unit = units[i]
        kind = _kind(unit, unit.first and not out)
        if picked and unit.after and i - 1 in chosen and units[i - 1].order == unit.order - 1:
            # It goes on from the unit before: one sentence of the summary, as in the source.
            before = picked.pop()
            kind = before.kind if before.kind != "statement" else kind
            picked.append(
                SourcedSentence(f"{before.text} {unit.text}", before.spans + unit.spans, kind)
            )
        else:
            picked.append(SourcedSentence(unit.text, unit.spans, kind))
    return out + picked


# What a heading names the section for: an option, a constant, a function ("Clean up (--rm)",
# "VOLUME (shared filesystems)", "asn1_perror()").
_IDENTIFIER = re.compile(r"(?<![\w-])(?:--?[a-z][\w-]*|[A-Z][A-Z0-9_]{2,}|[a-z]\w*_\w+|\w+\(\))")


def _scores(request: SummaryRequest, units: list[Unit]) -> np.ndarray:
    title = content(_bare(request.title or ""))
    names = set(_IDENTIFIER.findall(request.title or ""))
    n = len(units)
    central = _centrality([u.text for u in units])
    out = np.zeros(n)
    for i, u in enumerate(units):
        words = content(u.text)
        overlap = len(title & words) / len(title) if title else 0.0
        out[i] = (
            1.0 * u.first
            + 1.0 * any(name in u.text for name in names)
            + 0.8 * overlap
            + 0.3 * min(fact_weight(u.text), 3)
            + 0.6 * central[i]
            + 0.3 * u.admonition
            - 0.2 * (i / n)
        )
    return out


def _centrality(texts: list[str]) -> np.ndarray:
    if len(texts) < 2:
        return np.ones(len(texts))
    sim = _similarity(texts)
    c = (sim.sum(axis=1) - 1.0) / (len(texts) - 1)
    top = float(c.max())
    return c / top if top > 0 else c


def _similarity(texts: list[str]) -> np.ndarray:
    if len(texts) < 2:
        return np.ones((len(texts), len(texts)))
    from sklearn.feature_extraction.text import TfidfVectorizer

    try:
        m = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit_transform(texts)
    except ValueError:  # only stop words
        return np.eye(len(texts))
    return np.asarray((m @ m.T).toarray())


def _select(units: list[Unit], score: np.ndarray, budget: int) -> list[int]:
    """Greedy maximal marginal relevance within ``budget`` tokens; the opening unit first. A
    unit from the middle of a paragraph is taken with the units it goes on from, back to the
    paragraph's opening, or not at all (:mod:`indexer.summarizers.openings`); when what is left
    does not fit, the summary ends short of its budget rather than quote a unit out of its
    paragraph."""
    sim = _similarity([u.text for u in units])
    at = {u.order: i for i, u in enumerate(units)}
    bundles = {i: b for i in range(len(units)) if (b := _with_openers(units, i, at)) is not None}
    remaining = list(bundles)
    chosen: list[int] = []
    used = 0
    while remaining:
        redundancy = (
            sim[np.ix_(remaining, chosen)].max(axis=1) if chosen else np.zeros(len(remaining))
        )
        values = _MMR_LAMBDA * score[remaining] - (1 - _MMR_LAMBDA) * redundancy
        best = remaining[int(np.argmax(values))]
        remaining.remove(best)
        if best in chosen:
            continue
        bundle = [k for k in bundles[best] if k not in chosen]
        cost = sum(count_tokens(units[k].text) for k in bundle)
        if used + cost > budget:
            continue
        if chosen and sim[best, chosen].max() > 0.8:
            continue  # a near-duplicate (a repeated warning, an overlap)
        chosen += bundle
        used += cost
    return chosen


def _with_openers(units: list[Unit], i: int, at: dict[int, int]) -> list[int] | None:
    """Unit ``i`` and the units of its paragraph it goes on from, in order; None when a
    sentence before it in its paragraph is no unit (not quotable)."""
    out = [i]
    while not units[out[-1]].opens:
        before = at.get(units[out[-1]].order - 1)
        if not units[out[-1]].after or before is None:
            return None
        out.append(before)
    return out[::-1]


def _bare(title: str) -> str:
    """A heading without its numbering ("3.1.4. localhost Zone File" → "localhost Zone File")."""
    bare = _NUMBERING.sub("", title, count=1).strip()
    return bare or title.strip()


def _lead_of(child: ChildSummary) -> SourcedSentence | None:
    """What a child is about: its lead statement, else its first quoted statement."""
    for kind in ("lead", "statement", "fact"):
        for s in child.sentences:
            if s.kind == kind and count_tokens(s.text) <= _MAX_PART_LEAD:
                return s
            if s.kind == kind == "lead" and (opening := opening_of(s, _MAX_PART_LEAD)):
                return opening
    return None


def _fact_of(child: ChildSummary, lead: SourcedSentence) -> SourcedSentence | None:
    facts = [s for s in child.sentences if s.kind == "fact" and s is not lead]
    return max(facts, key=lambda s: fact_weight(s.text), default=None)


def _names(titles: Sequence[str]) -> str:
    bare = [_bare(t) for t in titles if t]
    if len(bare) > _MAX_NAMED:
        rest = len(bare) - _MAX_NAMED + 1
        bare = [*bare[: _MAX_NAMED - 1], MORE_ITEMS.format(n=rest).removeprefix("and ")]
    if len(bare) <= 1:
        return "".join(bare)
    return f"{', '.join(bare[:-1])} and {bare[-1]}"


def _part(child: ChildSummary) -> SourcedSentence | None:
    """One line for one part: its heading and lead, or its heading and what it covers."""
    head = (child.heading,) if child.heading else ()
    title = _bare(child.title)
    prefix = f"{title}: " if title else ""
    if back_matter(title):
        return None  # an index, a licence: named among the parts, never quoted
    lead = _lead_of(child)
    if lead is not None:
        if lead.text.startswith(prefix):
            prefix = ""  # the lead already opens with the part's name
        return SourcedSentence(f"{prefix}{lead.text}", head + lead.spans, "part", lead.verified)
    parts = [s for s in child.sentences if s.kind == "part" and s.spans]
    if title and child.children:
        spans = head + tuple(s.spans[0] for s in parts)
        return SourcedSentence(f"{title}: {PART_COVERS} {_names(child.children)}.", spans, "part")
    return None


def _outline(request: SummaryRequest, units: list[Unit], budget: int) -> list[SourcedSentence]:
    """A node with parts: its opening statement, one line per part, the rest by name."""
    out: list[SourcedSentence] = []
    used = 0
    opening = next(
        (u for u in units if u.opens and count_tokens(u.text) <= _MAX_PART_LEAD * 2), None
    )
    if opening is not None:
        out.append(SourcedSentence(opening.text, opening.spans, "lead"))
        used += count_tokens(opening.text)
    entries = entries_of(request.below) if request.below else []
    if len(entries) >= _REFERENCE and not any(c.title for c in request.children):
        return _reference_outline(out, request, entries, budget - used)
    if len(request.children) == 1 and request.children[0].sentences:
        return _single_part(out, request.children[0], budget - used)
    lines = [(_part(c), c) for c in request.children]
    cost = [count_tokens(p.text) if p else 0 for p, _ in lines]
    # Parts in order while they fit; when they do not, the largest parts get a line first.
    order = sorted(range(len(lines)), key=lambda i: -request.children[i].passages)
    keep: set[int] = set()
    reserve = 24 if len(lines) > 1 else 0  # room for naming the parts left over
    for i in order:
        if lines[i][0] is not None and used + cost[i] + reserve <= budget:
            keep.add(i)
            used += cost[i]
    # A key fact of a part joins its line while the budget allows, richest first.
    facts: dict[int, SourcedSentence] = {}
    for i in sorted(keep, key=lambda i: -request.children[i].passages):
        part = lines[i][0]
        assert part is not None
        lead = _lead_of(lines[i][1])
        fact = _fact_of(lines[i][1], lead) if lead else None
        if fact is not None and used + count_tokens(fact.text) + reserve <= budget:
            facts[i] = fact
            used += count_tokens(fact.text)
    for i, (part, child) in enumerate(lines):
        if i not in keep or part is None:
            continue
        fact = facts.get(i)
        if fact is not None and child.title:
            # Under its part's heading, a key fact stays filed under that part.
            part = SourcedSentence(
                f"{part.text} {fact.text}",
                part.spans + fact.spans,
                "part",
                part.verified and fact.verified,
            )
            fact = None
        out.append(part)
        if fact is not None:  # an untitled group's fact is a sentence of its own
            out.append(fact)
    left = [c for i, c in enumerate(request.children) if i not in keep and c.title]
    if left:
        spans = tuple(c.heading for c in left if c.heading)
        opener = ALSO_COVERS if keep or opening else COVERS
        names = _names([c.title for c in left])
        out.append(SourcedSentence(f"{opener} {names}.", spans, "outline"))
    return out


def _single_part(
    out: list[SourcedSentence], child: ChildSummary, budget: int
) -> list[SourcedSentence]:
    """One part only: the node says what its part says (after its own opening, if any)."""
    out = list(out)
    for s in child.sentences:
        if s.kind == "outline" and out:
            continue
        size = count_tokens(s.text)
        if size <= budget:
            out.append(s)
            budget -= size
    return out


def _reference_outline(
    out: list[SourcedSentence], request: SummaryRequest, entries: list[Piece], budget: int
) -> list[SourcedSentence]:
    """A node whose parts are groups of reference entries: the entries named, then what the
    groups' summaries say of an entry by its name."""
    names = _names([e.text for e in entries])
    spans = tuple((e.start, e.end) for e in entries[:_MAX_NAMED])
    out = [*out, SourcedSentence(f"{COVERS} {names}.", spans, "outline")]
    budget -= count_tokens(out[-1].text)
    known = {e.text for e in entries}
    for child in request.children:
        for s in child.sentences:
            owner = s.text.split(": ", 1)[0] if ": " in s.text else ""
            if owner.split(" ")[0] in known and count_tokens(s.text) <= budget:
                out.append(SourcedSentence(s.text, s.spans, "fact", s.verified))
                budget -= count_tokens(s.text)
    return out


def _no_statement(request: SummaryRequest) -> SourcedSentence:
    """A node with no quotable statement: what its first list or table holds, else that it
    holds code or text no sentence of which stands alone."""
    runs = request.own_text()
    title = _bare(request.title or "") or "This part"
    heading = (request.heading,) if request.heading else ()
    only = only_statement(runs)
    if only is not None:
        return SourcedSentence(strip_markup(only.text), ((only.start, only.end),), "lead")
    found = listing(runs)
    if found is not None:
        return SourcedSentence(f"{title}: {found.text}", heading + found.spans, "statement")
    spans = tuple((s, s + len(t)) for s, t in runs)
    return SourcedSentence(
        f"{title}: {NO_STATEMENT}.",
        heading + spans,
        "outline",
    )
