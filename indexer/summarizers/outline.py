"""A node with parts, summarized part by part; back matter named, never quoted.

A chapter or a document says what it is about (its own opening statement), then what it covers
part by part: each part by its heading and the part's own lead statement, with a key fact where
the length allows, and the parts left over named by their headings. A statement found in more
than one part's summary (a notice every chapter opens with) names none of them. An index, a
licence, a bibliography is named with its parts, never quoted clause by clause (its clauses out of
context mislead) — where it is back matter: a part of the document itself, or in an appendix.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from indexer.sourced import SourcedSentence
from indexer.summarizers.base import ChildSummary, SummaryRequest
from indexer.summarizers.blocks import WORD
from indexer.summarizers.cues import leans_back
from indexer.summarizers.facts import fact_weight
from indexer.summarizers.framing import (
    ALSO_COVERS,
    COVERS,
    CUT_CODE,
    MAX_NAMED,
    NOT_SUMMARIZED,
    PART_COVERS,
    bare,
    names,
)
from indexer.summarizers.licences import clauses_of, purpose_of, version_of
from indexer.summarizers.openings import opening_of
from indexer.summarizers.sentences import Piece, strip_markup
from indexer.summarizers.terms import entries_of
from indexer.summarizers.units import Unit
from indexer.tokens import count_tokens

MAX_PART_LEAD = 60  # tokens: a longer lead does not make a part line
REFERENCE = 4  # a node describing this many entries one after another is a reference

LICENCE = "a licence text"

# Back matter: a summary names these parts and quotes none of them.
_BACK_MATTER = {
    "an index": re.compile(r"\b(?:index|indexes|indices)\b", re.IGNORECASE),
    LICENCE: re.compile(r"\b(?:licen[cs]e|copying|copyright)\b", re.IGNORECASE),
    "a list of references": re.compile(r"\b(?:bibliography|references)\b", re.IGNORECASE),
    "a list of credits": re.compile(
        r"\b(?:colophon|acknowledge?ments?|authors|contributors)\b", re.IGNORECASE
    ),
}


_APPENDIX = re.compile(r"^\s*appendix\b", re.IGNORECASE)


def back_matter(title: str, above: Sequence[str] = ()) -> str | None:
    """What kind of back matter a heading names (an index, a licence …), or None. ``above``
    are the headings over it, the document's first: back matter is a part of the document
    itself, or lies in an appendix or in other back matter; deeper in the body a heading
    naming it is a topic ("2.7 Authorless and Yearless References")."""
    kind = next((kind for kind, p in _BACK_MATTER.items() if p.search(title)), None)
    parents = list(above)[1:]
    if kind is None or not parents:
        return kind
    if any(_APPENDIX.match(h) or any(p.search(h) for p in _BACK_MATTER.values()) for h in parents):
        return kind
    return None


def back_matter_summary(
    request: SummaryRequest, units: list[Unit], kind: str
) -> list[SourcedSentence]:
    """An index or a licence is named, never quoted clause by clause (its clauses out of
    context mislead): what it is (a licence with its version), its opening statement (a
    licence's statement of what it is for), and its parts (a licence's clauses) by name."""
    title = bare(request.title or "")
    spans: tuple[tuple[int, int], ...] = (request.heading,) if request.heading else ()
    spans = spans or tuple((s, s + len(t)) for s, t in request.own_text()[:1])
    # A licence whose every line sits in its parts: what it is rests on the parts' headings,
    # else on the spans of their summaries.
    spans = spans or tuple(c.heading for c in request.children if c.heading)
    spans = spans or tuple(p for c in request.children for s in c.sentences for p in s.spans)
    licence = kind == LICENCE
    text = (request.below or request.own_text()) if licence else []
    version = version_of(text)
    if version is not None:
        title, spans = f"{title}, {version.text}", (*spans, version.span)
    out = [SourcedSentence(f"{title}: {kind}, {NOT_SUMMARIZED}.", spans, "outline")]
    opening = next(
        (u for u in units if u.first and u.opens and count_tokens(u.text) <= MAX_PART_LEAD), None
    )
    purpose = purpose_of(text)
    if opening is not None:
        out.append(SourcedSentence(opening.text, opening.spans, "lead"))
    elif purpose is not None:
        # What the licence is for, as it says before its first clause.
        out.append(SourcedSentence(purpose.text, (purpose.span,), "lead"))
    else:
        # What it is, as its first part opens (a licence's preamble: its purpose).
        lead = next(
            (
                s
                for c in request.children[:1]
                for s in c.sentences[:1]
                if s.kind == "lead"
                and count_tokens(s.text) <= MAX_PART_LEAD
                and not leans_back(s.text)
            ),
            None,
        )
        if lead is not None:
            out.append(lead)
    # Its parts, and a licence's clauses, by title in the order they come.
    parts = [(c.heading, c.title) for c in request.children if c.title]
    parts += [(c.span, c.text) for c in clauses_of(text)]
    parts.sort(key=lambda p: p[0][0] if p[0] else -1)
    if parts:
        heads = tuple(span for span, _ in parts if span)
        out.append(SourcedSentence(f"{COVERS} {names([t for _, t in parts])}.", heads, "outline"))
    return out


def _lead_of(child: ChildSummary, repeated: frozenset[str] = frozenset()) -> SourcedSentence | None:
    """What a child is about: its lead statement, else its first quoted statement; never a
    statement ``repeated`` in other parts (a notice every chapter opens with says nothing of
    any one of them)."""
    for kind in ("lead", "statement", "fact"):
        for s in child.sentences:
            if _said(s.text) in repeated or CUT_CODE.search(s.text):
                continue  # code by its first line says what the part shows, not what it is for
            if s.kind == kind and count_tokens(s.text) <= MAX_PART_LEAD:
                return s
            if s.kind == kind == "lead" and (opening := opening_of(s, MAX_PART_LEAD)):
                return opening
    return None


def _said(text: str) -> str:
    """What a sentence says, whatever its quotes, markup and spacing."""
    return " ".join(w.lower() for w in WORD.findall(strip_markup(text)))


def _repeated(children: Sequence[ChildSummary]) -> frozenset[str]:
    """Statements found in the summaries of more than one part."""
    seen: dict[str, int] = {}
    for child in children:
        for said in {_said(s.text) for s in child.sentences if s.kind != "outline"}:
            seen[said] = seen.get(said, 0) + 1
    return frozenset(said for said, n in seen.items() if n > 1)


def _fact_of(child: ChildSummary, lead: SourcedSentence) -> SourcedSentence | None:
    facts = [
        s
        for s in child.sentences
        if s.kind == "fact" and s is not lead and not CUT_CODE.search(s.text)
    ]
    return max(facts, key=lambda s: fact_weight(s.text), default=None)


def _part(
    child: ChildSummary, above: Sequence[str], repeated: frozenset[str] = frozenset()
) -> SourcedSentence | None:
    """One line for one part (under the headings ``above``): its heading and lead, or its
    heading and what it covers."""
    head = (child.heading,) if child.heading else ()
    title = bare(child.title)
    prefix = f"{title}: " if title else ""
    if back_matter(title, above):
        return None  # an index, a licence: named among the parts, never quoted
    lead = _lead_of(child, repeated)
    if lead is not None:
        if lead.text.startswith(prefix):
            prefix = ""  # the lead already opens with the part's name
        return SourcedSentence(f"{prefix}{lead.text}", head + lead.spans, "part", lead.verified)
    parts = [s for s in child.sentences if s.kind == "part" and s.spans]
    if title and child.children:
        # The parts' headings: each part line's first span, and those an outline line names.
        named = tuple(span for s in child.sentences if s.kind == "outline" for span in s.spans)
        spans = head + tuple(s.spans[0] for s in parts) + named
        return SourcedSentence(f"{title}: {PART_COVERS} {names(child.children)}.", spans, "part")
    return None


def outline(
    request: SummaryRequest,
    units: list[Unit],
    budget: int,
    own: list[SourcedSentence] | None = None,
) -> list[SourcedSentence]:
    """A node with parts: its opening statement (or ``own``, the statements picked from its own
    text), one line per part, the rest by name."""
    out: list[SourcedSentence] = list(own or [])
    used = sum(count_tokens(s.text) for s in out)
    opening = None
    if not out:
        opening = next(
            (u for u in units if u.opens and count_tokens(u.text) <= MAX_PART_LEAD * 2), None
        )
    if opening is not None:
        out.append(SourcedSentence(opening.text, opening.spans, "lead"))
        used += count_tokens(opening.text)
    entries = entries_of(request.below) if request.below else []
    if len(entries) >= REFERENCE and not any(c.title for c in request.children):
        return _reference_outline(out, request, entries, budget - used)
    if len(request.children) == 1 and request.children[0].sentences:
        return _single_part(out, request.children[0], budget - used)
    repeated = _repeated(request.children)
    lines = [(_part(c, request.heading_path, repeated), c) for c in request.children]
    cost = [count_tokens(p.text) if p else 0 for p, _ in lines]
    # Parts in order while they fit; when they do not, the largest parts get a line first.
    order = sorted(range(len(lines)), key=lambda i: -request.children[i].passages)
    keep: set[int] = set()
    reserve = 24 if len(lines) > 1 else 0  # room for naming the parts left over
    for i in order:
        if lines[i][0] is not None and used + cost[i] + reserve <= budget:
            keep.add(i)
            used += cost[i]
    more = _details(request.children, lines, keep, repeated, used + reserve, budget)
    for i, (part, child) in enumerate(lines):
        if i not in keep or part is None:
            continue
        said = more.get(i, [])
        if said and child.title:
            # Under its part's heading, what the part says stays filed under that part.
            part = SourcedSentence(
                " ".join([part.text, *(x.text for x in said)]),
                part.spans + tuple(span for x in said for span in x.spans),
                "part",
                part.verified and all(x.verified for x in said),
            )
            said = []
        out.append(part)
        out.extend(said)  # an untitled group's statements are sentences of their own
    left = [c for i, c in enumerate(request.children) if i not in keep and c.title]
    if left:
        spans = tuple(c.heading for c in left if c.heading)
        opener = ALSO_COVERS if keep or opening or own else COVERS
        named = names([c.title for c in left])
        out.append(SourcedSentence(f"{opener} {named}.", spans, "outline"))
    return out


def _details(
    children: Sequence[ChildSummary],
    lines: list[tuple[SourcedSentence | None, ChildSummary]],
    keep: set[int],
    repeated: frozenset[str],
    used: int,
    budget: int,
) -> dict[int, list[SourcedSentence]]:
    """What joins the kept parts' lines, richest part first: each part's key fact while the
    budget allows; and where the node would say little (under half its budget, which readers
    judged uninformative), each part's further statements in turn, in the part's order."""
    order = sorted(keep, key=lambda i: -children[i].passages)
    out: dict[int, list[SourcedSentence]] = {i: [] for i in order}

    def fits(sentence: SourcedSentence) -> bool:
        return used + count_tokens(sentence.text) <= budget

    for i in order:
        lead = _lead_of(children[i], repeated)
        fact = _fact_of(children[i], lead) if lead else None
        if fact is not None and _said(fact.text) not in repeated and fits(fact):
            out[i].append(fact)
            used += count_tokens(fact.text)
    if used * 2 >= budget:
        return out
    added = True
    while added:
        added = False
        for i in order:
            line = lines[i][0]
            assert line is not None
            taken = line.spans + tuple(span for x in out[i] for span in x.spans)
            nxt = next((x for x in children[i].sentences if _further(x, taken, repeated)), None)
            if nxt is not None and fits(nxt):
                out[i].append(nxt)
                used += count_tokens(nxt.text)
                added = True
    for i in out:
        out[i].sort(key=lambda x: x.spans[0] if x.spans else (0, 0))
    return out


def _further(
    sentence: SourcedSentence, taken: tuple[tuple[int, int], ...], repeated: frozenset[str]
) -> bool:
    """Whether a part's summary sentence may join its line: a statement of its own (no code by
    its first line, no other part's notice), none of whose text the line already quotes."""
    if sentence.kind not in ("lead", "statement", "fact") or not sentence.spans:
        return False
    if count_tokens(sentence.text) > MAX_PART_LEAD:
        return False
    if CUT_CODE.search(sentence.text) or _said(sentence.text) in repeated:
        return False
    return not any(a < d and c < b for a, b in sentence.spans for c, d in taken)


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
    named = names([e.text for e in entries])
    spans = tuple((e.start, e.end) for e in entries[:MAX_NAMED])
    out = [*out, SourcedSentence(f"{COVERS} {named}.", spans, "outline")]
    budget -= count_tokens(out[-1].text)
    known = {e.text for e in entries}
    for child in request.children:
        for s in child.sentences:
            owner = s.text.split(": ", 1)[0] if ": " in s.text else ""
            if owner.split(" ")[0] in known and count_tokens(s.text) <= budget:
                out.append(SourcedSentence(s.text, s.spans, "fact", s.verified))
                budget -= count_tokens(s.text)
    return out
