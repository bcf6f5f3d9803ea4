"""Conditions a source states in a sentence of their own.

A manual often states a rule and then, in the next sentence, when it holds: "Embeds a comment
in the output. Only works when --xml=yes is specified." or "The cache is flushed at exit. This
happens only if the server shuts down cleanly." A summary that restates the rule must keep that
condition somewhere; the per-sentence comparison cannot see it, because the condition's
sentence is not the one the summary sentence restates.

A **restriction sentence** opens with what refers back to the previous statement (no subject,
or "this", "it", "such", "the option", …) and restricts it ("only", "unless", "except",
"provided", "as long as", "requires"). Its condition is kept when the summary has enough of its
own words or a span of the summary is close to it in meaning.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from indexer.lint.align import Candidate
from indexer.lint.flags import LintFlag
from indexer.lint.text import Span, content, shared

_BACK = (
    r"(?:this|it|these|those|that|such|they|the (?:option|setting|parameter|flag|feature|"
    r"variable|command|value|behaviou?r|check|mode|property|policy|field|directive))"
)
_CUE = r"(?:only|unless|except|provided|as long as|requires?|needs? to be)"
_RESTRICTION = re.compile(
    rf"^(?:{_BACK}\b[^.;:]{{0,50}}?\b(?P<a>{_CUE})\b"
    rf"|(?P<b>only)\b"
    rf"|(?:\w+\s+){{0,2}}?(?P<c>only|unless)\b)",
    re.IGNORECASE,
)
_CONDITION = re.compile(
    r"\b(?:if|when|whenever|while|unless|provided|as long as|except|once|only (?:in|on|for|"
    r"with|within|after|before|during|where))\b",
    re.IGNORECASE,
)
_GENERIC = frozenset(["work", "apply", "use", "option", "setting", "parameter", "specifi", "given"])
RESTRICTION_PREFIX = "the next source sentence restricts this:"
KEPT_SHARE = 0.34  # of the condition's own words, anywhere in the summary
KEPT_SIMILARITY = 0.575  # a summary span this close in meaning to the condition keeps it

Similarity = Callable[[str], float]


def restriction(sentence: str) -> Span | None:
    """The condition of a restriction sentence (from its cue to the end of its first clause),
    or None when the sentence does not restrict the statement before it."""
    m = _RESTRICTION.match(sentence)
    if m is None:
        return None
    group = next(g for g in ("a", "b", "c") if m.group(g))
    start = m.start(group)
    stop = re.search(r"[;:]|\.(?:\s|$)", sentence[start:])
    end = start + stop.start() if stop else len(sentence)
    # "Only" must introduce a condition ("only when …", "only works if …"), not restrict a
    # statement of the sentence's own ("can only be set at server start").
    if not _CONDITION.search(sentence[start:end]):
        return None
    return Span(sentence[start:end], start, end)


def dropped_restrictions(
    said: list[Span],
    alignments: list[list[Candidate]],
    source: list[Span],
    summary: str,
    similarity: Similarity,
    restates: float,
) -> list[LintFlag]:
    """Restriction sentences whose statement (the sentence before) the summary restates while
    the summary keeps nothing of their condition."""
    index = {id(s): i for i, s in enumerate(source)}
    have = content(summary)
    out: list[LintFlag] = []
    seen: set[int] = set()
    for sent, sent_candidates in zip(said, alignments, strict=True):
        for cand in sent_candidates:
            i = index.get(id(cand.source))
            if i is None or cand.score < restates or i + 1 >= len(source) or i + 1 in seen:
                continue
            after = source[i + 1]
            cond = restriction(after.text)
            if cond is None or after.start < cand.source.start:
                continue  # not the next sentence of the same text
            seen.add(i + 1)
            own = {w for w in content(cond.text) - content(cand.source.text) if w not in _GENERIC}
            own = own or content(cond.text)
            if own and len(shared(own, have)) / len(own) >= KEPT_SHARE:
                continue
            if similarity(cond.text) >= KEPT_SIMILARITY:
                continue
            out.append(
                LintFlag(
                    "condition",
                    f"{RESTRICTION_PREFIX} {cond.text!r}; the summary does not",
                    sent.text, after.text, summary_quote=None, source_quote=cond.text,
                    rule="condition.restriction",
                )
            )  # fmt: skip
    return out


def is_restriction_flag(flag: LintFlag) -> bool:
    """True for a flag of :func:`dropped_restrictions` (decided by these rules, not by the
    fitted decision)."""
    return flag.kind == "condition" and flag.message.startswith(RESTRICTION_PREFIX)
