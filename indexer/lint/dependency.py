"""What an extracted sentence leans on and leaves out.

A sentence quoted from the source can mislead without a changed word: "That would allow software
to use both" where "that" was the disabling of something the summary left out, "The following
modes are supported:" without its list. Whether a quoted sentence does this is read off the
source around its span, with the cues the extractive summarizer avoids it by
(:mod:`indexer.summarizers.cues`): a sentence that points back at a sentence before it in the
same paragraph, or announces a list, a table or code the quote does not hold.
"""

from __future__ import annotations

from indexer.lint.flags import LintFlag
from indexer.summarizers.cues import is_lead_in, leans_back, points_forward
from indexer.summarizers.sentences import sentence_spans

_BEFORE = 600


def dependency_flag(quoted: str, text: str, start: int) -> LintFlag | None:
    """A ``dependency`` flag when the quoted sentence (starting at ``start`` in ``text``) leans
    on a sentence before it in its paragraph or announces what it does not hold; else None."""
    first = _first_sentence(quoted)
    if quoted.rstrip().endswith(":") or (points_forward(quoted) and not is_lead_in(first)):
        return LintFlag(
            kind="dependency",
            message="It announces what follows it in the source, which the summary leaves out.",
            summary_text=quoted,
            source_text=text[start : start + len(quoted) + 200],
            rule="dependency.forward",
        )
    if not leans_back(first):
        return None
    before = _previous_sentence(text, start)
    if before is None:
        return None  # it opens its paragraph under a heading: the heading is what it leans on
    return LintFlag(
        kind="dependency",
        message="It points back at the sentence before it in the source, which the summary "
        "leaves out.",
        summary_text=quoted,
        source_text=before,
        summary_quote=first.split()[0] if first.split() else None,
        rule="dependency.back",
    )


def _first_sentence(text: str) -> str:
    pieces = sentence_spans(text)
    return pieces[0].text if pieces else text


def _previous_sentence(text: str, start: int) -> str | None:
    """The sentence right before ``start`` in the same paragraph, or None."""
    window = text[max(0, start - _BEFORE) : start]
    paragraph = window.rsplit("\n\n", 1)[-1]
    pieces = sentence_spans(paragraph)
    return pieces[-1].text if pieces else None
