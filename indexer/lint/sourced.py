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

from collections.abc import Iterator, Sequence
from dataclasses import replace

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
    for i, sentence, body, sources, names, cited_ranges in _statements(sentences, text):
        # Constraints are compared with the cited text in its paragraph: a condition the
        # source states in the sentence next to the cited one is not dropped.
        spans = sentence.spans[len(names) :]
        context = [_paragraph(text, s.char_start, s.char_end) for s in spans] or sources
        found = linter.lint(body, context, [*labels, *names])
        if _extracted(body, sources):
            start = sentence.spans[len(names)].char_start
            flag = dependency_flag(body, text, start, cited_ranges, [*labels, *names])
            if flag is not None:
                found.append(flag)
        out.extend(replace(f, sentence=i, source_text=_one_line(f.source_text)) for f in found)
    return out


def leanings(
    sentences: Sequence[ResolvedSentence], text: str, labels: Sequence[str] = ()
) -> list[tuple[int, Leaning]]:
    """What each extracted sentence of a summary leans on (:func:`indexer.lint.dependency.leaning`),
    by the sentence's index: the features the dependency check is fitted on."""
    out: list[tuple[int, Leaning]] = []
    for i, sentence, body, sources, names, cited_ranges in _statements(sentences, text):
        if _extracted(body, sources):
            start = sentence.spans[len(names)].char_start
            out.append((i, leaning(body, text, start, cited_ranges, [*labels, *names])))
    return out


_Statement = tuple[int, ResolvedSentence, str, list[str], list[str], list[tuple[int, int]]]


def _statements(sentences: Sequence[ResolvedSentence], text: str) -> Iterator[_Statement]:
    """The summary's checked sentences (not its outline lines), each with its index, its
    statement, the cited texts, the labels taken off, and the ranges the whole summary cites."""
    cited_ranges = [(s.char_start, s.char_end) for x in sentences for s in x.spans]
    for i, sentence in enumerate(sentences):
        if sentence.kind == "outline" or not sentence.spans:
            continue
        cited = [text[s.char_start : s.char_end] for s in sentence.spans]
        body, sources, names = _statement(sentence.text, cited)
        if body:
            yield i, sentence, body, sources, names, cited_ranges


def _extracted(body: str, sources: list[str]) -> bool:
    """Whether the statement is quoted from its cited text (its words are the span's words)."""
    return bool(sources) and support(body, " ".join(sources)).coverage >= EXTRACTED


def _statement(sentence: str, cited: list[str]) -> tuple[str, list[str], list[str]]:
    """The sentence's statement without its framing and its label ("Title: ", "term: "), the
    cited texts it is checked against, and the labels taken off (names, not statements)."""
    body = without_frame(sentence)
    names: list[str] = []
    sources = list(cited)
    while ": " in body and len(sources) > 1:
        label, rest = body.split(": ", 1)
        words = content(label)
        # A label names what its span holds (a heading, a term), all of it; a lead-in ending in
        # a colon or a list item's own "label:" is the statement, not a name.
        if not words or words != content(sources[0]) or sources[0].rstrip().endswith(":"):
            break
        names.append(label)
        sources = sources[1:]
        body = rest
    return body.strip(), sources, names


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
