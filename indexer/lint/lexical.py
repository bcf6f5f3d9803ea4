"""The previous, lexical lint: kept as the baseline the planted-fault benchmark compares with.

It flags numbers absent from the source, conditions and negations of a source sentence that a
summary sentence sharing half its content words restates without, and absolute words the source
does not use anywhere. The lint in use is :func:`indexer.lint.lint_summary`.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from indexer.summarizers.sentences import split_sentences

_NUMBER = re.compile(r"(?<![\w.])[-+±]?\d+(?:[.,]\d+)*(?:\s?(?:%|°C|°F|°|[A-Za-zµ·/]+\d?))?")
_UNITLESS = re.compile(r"[-+±]?\d+(?:[.,]\d+)*")
_WORD = re.compile(r"[a-z][a-z'-]+")
_CONDITIONS = (
    "if",
    "unless",
    "only when",
    "only if",
    "except",
    "provided that",
    "as long as",
    "before",
    "until",
    "when",
    "whenever",
    "otherwise",
)
_NEGATIONS = ("not", "never", "no", "without", "cannot", "can't", "don't", "mustn't", "nor")
_ABSOLUTES = (
    "always",
    "never",
    "all",
    "every",
    "any",
    "none",
    "guaranteed",
    "completely",
    "entirely",
    "under all circumstances",
    "in every case",
)
_STOP_WORDS = (
    "the a an and or of to in on at for with by from is are be been was were it its this "
    "that these those as into than then must should shall may can will"
)
_STOP = frozenset(_STOP_WORDS.split())
_RESTATEMENT = 0.5


@dataclass(frozen=True)
class LintFlag:
    """One problem found in a summary."""

    kind: str  # number | condition | negation | absolute
    message: str
    summary_text: str
    source_text: str | None = None


def _has_phrase(text: str, phrase: str) -> bool:
    return re.search(rf"(?<![\w']){re.escape(phrase)}(?![\w'])", text) is not None


def _content_words(sentence: str) -> set[str]:
    return {w for w in _WORD.findall(sentence.lower()) if w not in _STOP and len(w) > 2}


def _numbers(text: str) -> set[str]:
    # Signs are dropped: "PX-200" and "E-12" are part numbers and codes, not negative values.
    return {m.group(0).replace(",", ".").lstrip("+-±") for m in _UNITLESS.finditer(text)}


def lint_summary(summary: str, sources: list[str]) -> list[LintFlag]:
    """Flags for ``summary`` given the texts it was written from (passages, child summaries).

    Args:
        summary: The summary text.
        sources: Everything the summary was written from.

    Returns:
        The flags, most serious kinds first; empty when nothing was found.
    """
    source = "\n".join(sources)
    source_lower = source.lower()
    flags: list[LintFlag] = []
    source_numbers = _numbers(source)
    for match in _NUMBER.finditer(summary):
        number = _UNITLESS.match(match.group(0).lstrip("±+"))
        value = (number.group(0) if number else match.group(0)).replace(",", ".").lstrip("+-±")
        if value and value not in source_numbers:
            flags.append(
                LintFlag(
                    "number",
                    f"{match.group(0).strip()!r} does not occur in the source",
                    match.group(0).strip(),
                )
            )
    source_sentences = [s for src in sources for s in split_sentences(src)]
    summary_sentences = split_sentences(summary)
    for sent in summary_sentences:
        words = _content_words(sent)
        if len(words) < 3:
            continue
        low = sent.lower()
        for src in source_sentences:
            src_words = _content_words(src)
            if not src_words or len(words & src_words) / len(src_words | words) < _RESTATEMENT:
                continue
            src_low = src.lower()
            for kind, phrases in (("condition", _CONDITIONS), ("negation", _NEGATIONS)):
                lost = sorted(
                    (p for p in phrases if _has_phrase(src_low, p) and not _has_phrase(low, p)),
                    key=len,
                    reverse=True,
                )
                if lost:
                    flags.append(
                        LintFlag(
                            kind, f"the source says {lost[0]!r}; the summary does not", sent, src
                        )
                    )
    for word in _ABSOLUTES:
        if _has_phrase(summary.lower(), word) and not _has_phrase(source_lower, word):
            flags.append(LintFlag("absolute", f"{word!r} is not supported by the source", word))
    order = {"condition": 0, "negation": 1, "number": 2, "absolute": 3}
    unique = {(f.kind, f.summary_text, f.source_text): f for f in flags}
    return sorted(unique.values(), key=lambda f: order[f.kind])


def flags_json(flags: list[LintFlag]) -> list[dict[str, Any]]:
    """Flags as JSON-ready dicts."""
    return [asdict(f) for f in flags]
