"""The lint of a sourced summary: each sentence against exactly the source spans it cites.

With every summary sentence carrying the spans it rests on, the check no longer guesses which
source sentence a summary sentence came from: it compares the sentence with the text of its own
spans, and never with the rest of the node or with other summaries (a chapter's sentence is
checked against the source passages its spans point into, not against a section summary).

- The summarizer's framing ("It also covers …", "Title: " before a part's lead, "term: "
  before an entry's description) is no statement and is not checked; a sentence naming parts by
  their headings (``kind == "outline"``) states nothing to check.
- What the constraints checks compare — conditions and scope, negations both ways, numbers with
  units, absolutes — is the existing rule set (:func:`indexer.lint.check.lint_summary`), run on
  one sentence and its cited text.
- An extracted sentence (its words are its span's words) is also checked for what it leans on
  and left out: a pronoun or connective pointing back, the term an entry describes, a list's
  lead-in, a lead-in without its list (:mod:`indexer.lint.dependency`), with the confidence of
  the model fitted on sentences the team's judges read.

Every flag names the sentence it is about (``sentence``: its index in the summary) and quotes
the cited source in one line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from indexer.lint.dependency import Leaning, dependency_flag, leaning
from indexer.lint.flags import LintFlag
from indexer.lint.linter import Linter
from indexer.sourced import ResolvedSentence
from indexer.summarizers.framing import without_frame
from indexer.summarizers.support import support
from indexer.words import content

_QUOTE_CHARS = 240
EXTRACTED = 0.95  # the share of a statement's words its cited text holds, to count as quoted
_CONTEXT = 800


def lint_sentences(
    linter: Linter, sentences: Sequence[ResolvedSentence], text: str, labels: Sequence[str] = ()
) -> list[LintFlag]:
    """The flags of a summary's sentences, each checked against its cited spans of ``text``.

    Args:
        linter: The rules and their confidence.
        sentences: The summary, sentence by sentence, with absolute spans.
        text: The document's text the spans point into.
        labels: The headings down to the node (names, not statements).
    """
    out: list[LintFlag] = []
    for st in _statements(sentences, text, labels):
        # Constraints are compared with the cited text in its paragraph: a condition the
        # source states in the sentence next to the cited one is not dropped.
        context = [_paragraph(text, a, b) for a, b in st.spans] or st.sources
        found = linter.lint(st.body, context, st.labels)
        if st.extracted:
            flag = dependency_flag(
                st.body, text, st.start, st.cited, st.labels, end=st.end, last=st.last
            )
            if flag is not None:
                found.append(flag)
        out.extend(
            replace(f, sentence=st.index, source_text=_one_line(f.source_text)) for f in found
        )
    return out


def leanings(
    sentences: Sequence[ResolvedSentence], text: str, labels: Sequence[str] = ()
) -> list[tuple[int, Leaning]]:
    """What each extracted sentence of a summary leans on (:func:`indexer.lint.dependency.leaning`),
    by the sentence's index: the features the dependency check is fitted on."""
    return [
        (st.index, leaning(st.body, text, st.start, st.cited, st.labels, end=st.end, last=st.last))
        for st in _statements(sentences, text, labels)
        if st.extracted
    ]


@dataclass(frozen=True)
class _Statement:
    """A checked sentence of a summary: what it states, against what, and where.

    Attributes:
        index: Its index in the summary.
        body: Its statement (framing and labels taken off).
        sources: The texts its statement's spans cite.
        spans: Those spans, as ``(start, end)`` in the document's text.
        labels: The node's headings and the labels taken off the sentence (names).
        cited: The ranges the whole summary cites.
        last: Whether it is the summary's last sentence.
    """

    index: int
    body: str
    sources: list[str]
    spans: list[tuple[int, int]]
    labels: list[str]
    cited: list[tuple[int, int]]
    last: bool

    @property
    def extracted(self) -> bool:
        """Whether the statement is quoted from its cited text (its words are the span's
        words)."""
        return (
            bool(self.sources) and support(self.body, " ".join(self.sources)).coverage >= EXTRACTED
        )

    @property
    def start(self) -> int:
        """Where the quote starts in the document's text."""
        return self.spans[0][0]

    @property
    def end(self) -> int:
        """Where it ends: its last span's end (a quote with its markup stripped is shorter than
        its source)."""
        return self.spans[-1][1]


def _statements(
    sentences: Sequence[ResolvedSentence], text: str, labels: Sequence[str]
) -> Iterator[_Statement]:
    """The summary's checked sentences (not its outline lines)."""
    cited_ranges = [(s.char_start, s.char_end) for x in sentences for s in x.spans]
    for i, sentence in enumerate(sentences):
        if sentence.kind == "outline" or not sentence.spans:
            continue
        cited = [text[s.char_start : s.char_end] for s in sentence.spans]
        body, sources, names = _statement(sentence.text, cited)
        if body:
            spans = [(s.char_start, s.char_end) for s in sentence.spans[len(names) :]]
            yield _Statement(
                i, body, sources, spans, [*labels, *names], cited_ranges, i == len(sentences) - 1
            )


def _statement(sentence: str, cited: list[str]) -> tuple[str, list[str], list[str]]:
    """The sentence's statement without its framing and its label ("Title: ", "term: "), the
    cited texts it is checked against, and the labels taken off (names, not statements)."""
    body = without_frame(sentence)
    names: list[str] = []
    sources = list(cited)
    # A lead-in ending in a colon or a list item's own "label:" is the statement, not a name.
    while len(sources) > 1 and not sources[0].rstrip().endswith(":"):
        cut = _label_end(body, sources[0])
        if cut is None:
            break
        names.append(body[:cut])
        sources = sources[1:]
        body = body[cut + 2 :]
    return body.strip(), sources, names


def _label_end(body: str, cited: str) -> int | None:
    """Where the "label: " that opens ``body`` ends, when the label names all its cited span
    holds (a heading, a term), at whichever ": " it does: a heading may hold one itself
    ("Network: none: …")."""
    named = content(cited)
    if not named:
        return None
    return next(
        (m.start() for m in re.finditer(": ", body) if content(body[: m.start()]) == named), None
    )


def _paragraph(text: str, start: int, end: int) -> str:
    """The paragraph (between blank lines) holding ``text[start:end]``, at most
    :data:`_CONTEXT` characters on either side."""
    before = text.rfind("\n\n", max(0, start - _CONTEXT), start)
    after = text.find("\n\n", end, end + _CONTEXT)
    lo = before + 2 if before != -1 else max(0, start - _CONTEXT)
    hi = after if after != -1 else min(len(text), end + _CONTEXT)
    return text[lo:hi]


def _one_line(text: str | None) -> str | None:
    if text is None:
        return None
    line = " ".join(text.split())
    return line if len(line) <= _QUOTE_CHARS else line[: _QUOTE_CHARS - 1] + "…"
