"""What an extracted sentence leans on and leaves out.

A sentence quoted from the source can mislead without a changed word: "That would allow software
to use both" where "that" was the disabling of something the summary left out, "The following
modes are supported:" without its list. Whether a quoted sentence does this is read off the
source around its span, with the cues the extractive summarizer avoids it by
(:mod:`indexer.summarizers.cues`): a sentence that points back at a sentence before it in the
same paragraph, or announces a list, a table or code the quote does not hold.
"""

from __future__ import annotations

from collections.abc import Sequence

from indexer.lint.flags import LintFlag
from indexer.summarizers.cues import is_lead_in, leans_back, points_forward
from indexer.summarizers.sentences import sentence_spans

_BEFORE = 600
# A sentence the summary quotes most of counts as quoted.
_COVERED = 0.8
# What may lie between a lead-in and the quote of what it announces: blanks and list markers.
_NEXT = 40
_GAP = " \t\n-*•>|"


def dependency_flag(
    quoted: str, text: str, start: int, cited: Sequence[tuple[int, int]] = ()
) -> LintFlag | None:
    """A ``dependency`` flag when the quoted sentence (starting at ``start`` in ``text``) leans
    on a sentence before it in its paragraph or announces what follows it, and the summary
    (whose sentences cite the ranges ``cited`` of ``text``) leaves that out; else None."""
    first = _first_sentence(quoted)
    end = start + len(quoted)
    if quoted.rstrip().endswith(":") or (points_forward(quoted) and not is_lead_in(first)):
        if _follows(text, end, cited):
            return None  # the summary's next quote is what it announces
        return LintFlag(
            kind="dependency",
            message="It announces what follows it in the source, which the summary leaves out.",
            summary_text=quoted,
            source_text=text[start : end + 200],
            rule="dependency.forward",
        )
    if not leans_back(first):
        return None
    before = _previous_sentence(text, start)
    if before is None:
        return None  # it opens its paragraph under a heading: the heading is what it leans on
    if _covered(before, cited):
        return None  # the summary quotes the sentence it leans on too
    return LintFlag(
        kind="dependency",
        message="It points back at the sentence before it in the source, which the summary "
        "leaves out.",
        summary_text=quoted,
        source_text=text[before[0] : before[1]],
        summary_quote=first.split()[0] if first.split() else None,
        rule="dependency.back",
    )


def _first_sentence(text: str) -> str:
    pieces = sentence_spans(text)
    return pieces[0].text if pieces else text


def _previous_sentence(text: str, start: int) -> tuple[int, int] | None:
    """Where the sentence right before ``start`` in the same paragraph lies, or None."""
    lo = max(0, start - _BEFORE)
    window = text[lo:start]
    cut = window.rfind("\n\n")
    offset = lo + cut + 2 if cut != -1 else lo
    pieces = sentence_spans(text[offset:start])
    return (offset + pieces[-1].start, offset + pieces[-1].end) if pieces else None


def _covered(where: tuple[int, int], cited: Sequence[tuple[int, int]]) -> bool:
    """Whether the cited ranges hold most of ``where``'s characters."""
    lo, hi = where
    inside = sum(max(0, min(hi, b) - max(lo, a)) for a, b in cited)
    return hi > lo and inside >= _COVERED * (hi - lo)


def _follows(text: str, end: int, cited: Sequence[tuple[int, int]]) -> bool:
    """Whether a cited range starts right after ``end`` (past blank space and list markers)."""
    rest = text[end : end + _NEXT]
    gap = len(rest) - len(rest.lstrip(_GAP))
    return any(end <= a <= end + gap + 1 for a, _ in cited)
