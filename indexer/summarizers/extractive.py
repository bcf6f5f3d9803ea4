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
from indexer.summarizers.base import SummarizerIdentity, SummaryRequest, SummaryResult
from indexer.summarizers.dialogue import is_dialogue
from indexer.summarizers.facts import fact_weight
from indexer.summarizers.fingerprint import code_fingerprint
from indexer.summarizers.framing import (
    COVERS,
    CUT_CODE,
    MAX_NAMED,
    NO_STATEMENT,
    bare,
    names,
)
from indexer.summarizers.openings import only_statement
from indexer.summarizers.outline import REFERENCE, back_matter, back_matter_summary, outline
from indexer.summarizers.sentences import strip_markup
from indexer.summarizers.terms import entries_of
from indexer.summarizers.units import Unit, listing, units_of
from indexer.tokens import count_tokens
from indexer.words import content

# v4: a sentence leaning back goes on from the paragraph before. The version also carries a
# fingerprint of the summarizer's own code, so a changed rule never reuses a summary (and its
# spans) written by the old one.
PROMPT_VERSION = f"extractive-v20+{code_fingerprint()}"
_MMR_LAMBDA = 0.7
_OUTLINE_FACTOR = 2  # a node with parts gets twice the budget of a leaf section
# A node with parts whose own passages are at least this share of its passages is summarized
# from its own text too, in proportion (at most half the budget), not by its opening alone.
_OWN_SHARE = 0.2
_OWN_MAX = 0.5


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
        kind = None
        if request.level != "document":
            kind = back_matter(request.title or "", request.heading_path[:-1])
        if kind is not None:
            sentences = back_matter_summary(request, units, kind)
        elif request.children:
            budget = self.max_tokens * _OUTLINE_FACTOR
            sentences = outline(request, units, budget, _own_statements(request, units, budget))
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


def _kind(unit: Unit, lead: bool) -> str:
    if lead:
        return "lead"
    return "fact" if fact_weight(unit.text) else "statement"


def _statements(request: SummaryRequest, units: list[Unit], budget: int) -> list[SourcedSentence]:
    """A leaf's summary: its opening statement, key facts and central statements. A node of
    reference entries (a definition list, commands, functions) names its entries and quotes
    only what says which entry it is about."""
    units = [u for u in units if count_tokens(u.text) <= budget]
    out: list[SourcedSentence] = []
    entries = entries_of(request.own_text())
    if len(entries) >= (2 if request.level == "cluster" else REFERENCE):
        opening = next((u for u in units if u.first and u.opens and u.term is None), None)
        if opening is not None:
            out.append(SourcedSentence(opening.text, opening.spans, "lead"))
        named = names([e.text for e in entries])
        out.append(
            SourcedSentence(
                f"{COVERS} {named}.",
                tuple((e.start, e.end) for e in entries[:MAX_NAMED]),
                "outline",
            )
        )
        budget -= sum(count_tokens(s.text) for s in out)
        units = [u for u in units if u.term is not None]
    if not units:
        return out
    return out + _quoted(units, _chosen(request, units, budget), lead=not out)


def _own_statements(
    request: SummaryRequest, units: list[Unit], budget: int
) -> list[SourcedSentence] | None:
    """What a node with parts says in its own text, before its parts, when that text is a fair
    share of the node (an option's description above its examples, a chapter's long
    introduction): its key statements, picked as a leaf's are, within that share of the
    budget. None when one opening statement speaks for it (:func:`outline` picks that)."""
    below = sum(c.passages for c in request.children)
    share = len(request.passages) / max(len(request.passages) + below, 1)
    if share < _OWN_SHARE:
        return None
    own_budget = int(budget * min(share, _OWN_MAX))
    # Its prose, not its entries: a term's description ("add_library: …") read outside its
    # list runs the list into the summary under a label that is no part's heading.
    fitting = [u for u in units if u.term is None and count_tokens(u.text) <= own_budget]
    if len(fitting) < 2:
        return None
    picked = _quoted(fitting, _chosen(request, fitting, own_budget), lead=True)
    return picked if len(picked) > 1 else None


def _quoted(units: list[Unit], chosen: list[int], *, lead: bool) -> list[SourcedSentence]:
    """The chosen units in document order, a unit going on from the one before joined to it;
    the node's opening unit is its lead when ``lead``."""
    picked: list[SourcedSentence] = []
    for i in sorted(chosen):
        unit = units[i]
        kind = _kind(unit, unit.first and lead)
        if picked and unit.after and i - 1 in chosen and units[i - 1].order == unit.order - 1:
            # It goes on from the unit before: one sentence of the summary, as in the source.
            before = picked.pop()
            kind = before.kind if before.kind != "statement" else kind
            picked.append(
                SourcedSentence(f"{before.text} {unit.text}", before.spans + unit.spans, kind)
            )
        else:
            picked.append(SourcedSentence(unit.text, unit.spans, kind))
    return picked


def _chosen(request: SummaryRequest, units: list[Unit], budget: int) -> list[int]:
    """The units a leaf's summary quotes. Code quoted by its first line ("… like this: `SELECT
    …` and 9 more lines") says less than a statement: it is quoted only where the statements
    leave most of the budget unused (a section of examples), never in place of one."""
    score = _scores(request, units)
    cut = np.array([bool(CUT_CODE.search(u.text)) for u in units])
    whole = [i for i in range(len(units)) if not cut[i]]
    chosen = [whole[k] for k in _select([units[i] for i in whole], score[whole], budget)]
    used = sum(count_tokens(units[i].text) for i in chosen)
    if not cut.any() or used * 2 >= budget:
        return chosen
    # The statements first, as before; then the examples, as the budget allows.
    return _select(units, score - 10.0 * cut, budget)


# What a heading names the section for: an option, a constant, a function ("Clean up (--rm)",
# "VOLUME (shared filesystems)", "asn1_perror()").
_IDENTIFIER = re.compile(r"(?<![\w-])(?:--?[a-z][\w-]*|[A-Z][A-Z0-9_]{2,}|[a-z]\w*_\w+|\w+\(\))")


def _scores(request: SummaryRequest, units: list[Unit]) -> np.ndarray:
    title = content(bare(request.title or ""))
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
    # Each entry ("fc", "history" with its options "history -c" …) said once before any is
    # said twice, as a reader of a reference expects: a unit of an entry already quoted waits.
    heads = [u.term.split()[0] if u.term else None for u in units]
    at = {u.order: i for i, u in enumerate(units)}
    bundles = {i: b for i in range(len(units)) if (b := _with_openers(units, i, at)) is not None}
    remaining = list(bundles)
    chosen: list[int] = []
    used = 0
    while remaining:
        said = {heads[k] for k in chosen}
        fresh = [r for r in remaining if heads[r] is None or heads[r] not in said]
        pool = fresh or remaining
        redundancy = sim[np.ix_(pool, chosen)].max(axis=1) if chosen else np.zeros(len(pool))
        values = _MMR_LAMBDA * score[pool] - (1 - _MMR_LAMBDA) * redundancy
        best = pool[int(np.argmax(values))]
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


def _no_statement(request: SummaryRequest) -> SourcedSentence:
    """A node with no quotable statement: what its first list or table holds, else that it
    holds code or text no sentence of which stands alone."""
    runs = request.own_text()
    title = bare(request.title or "") or "This part"
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
