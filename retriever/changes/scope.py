"""What a change question is about: which documents, which part of one, and which value.

Documents: those the request names, else those whose title or file name the question uses
("the pump manual", "the NG-40 manual"), else every document with a change in the range.
A part ("the maintenance chapter", "section 5.6", "the spare parts list"): a heading the
question names by its number, or by its words, read as :mod:`retriever.names` reads headings.
A single-word heading counts only when the question also says which level it means
("the troubleshooting chapter"): "is the impeller torque different?" asks about a torque, not
about section 5.4 Impeller. What is left of the question once its change words, dates,
document and part are taken away is the value asked about ("impeller torque").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from retriever.intent_cues import named_numbers
from retriever.names import document_name, heading_parts
from retriever.tokenize import tokenize

_LEVEL = re.compile(r"\b(chapter|section|subsection|part|appendix|heading|paragraph)s?\b")
# words of change questions that are not what the question is about
_FRAME = frozenset(
    tokenize(
        "change changed changes changing different difference differences differ differs new "
        "newer newest latest last previous prior old older earlier current updated update "
        "updates revised revision revisions version versions edition release upload added add "
        "removed remove deleted delete dropped moved move renamed rename reordered reorder "
        "modified edited edit edits altered replaced rewritten still anymore longer same before "
        "now since between compared compare comparison vs versus diff changelog appeared gone "
        "anything everything something list show tell give summarize summary manual guide "
        "document doc handbook notes chapter section subsection part appendix heading paragraph "
        "passage passages sections chapters steps step made got they what which whole "
        "another other there been any place location where instruction instructions "
        "today yesterday week month year ago day days weeks months years two this "
        "january february march april may june july august september october november december"
    )
)
_GENERIC_NAME = frozenset(tokenize("manual guide document service handbook reference notes"))


@dataclass(frozen=True)
class NamedPart:
    """A headed section as the question may name it."""

    path: tuple[str, ...]
    title: str
    level: str = "section"


def question_words(question: str) -> set[str]:
    """The question's lexical tokens (stemmed, stopwords dropped)."""
    return set(tokenize(question))


def documents_named(question: str, names: dict[str, str | None]) -> list[str]:
    """The documents the question names: ``names`` maps doc_id → title (or None); the best
    overlap of distinctive words with a title or file name wins (all tied ones)."""
    words = question_words(question) - _FRAME
    scored: dict[str, int] = {}
    for doc_id, title in names.items():
        own = set(tokenize(document_name(doc_id))) | set(tokenize(title or ""))
        hits = len((own - _GENERIC_NAME) & words)
        if hits:
            scored[doc_id] = hits
    if not scored:
        return []
    best = max(scored.values())
    return sorted(d for d, n in scored.items() if n == best)


def part_named(question: str, parts: Iterable[NamedPart]) -> NamedPart | None:
    """The part of a document the question names, or None for the whole document."""
    numbers = set(named_numbers(question))
    level = _LEVEL.search(question.casefold()) is not None
    words = question_words(question)
    best: tuple[tuple[float, int, int], NamedPart] | None = None
    for part in parts:
        number, heading = heading_parts(part.title)
        if number is not None and number in numbers:
            return part
        if not heading:
            continue
        score = len(heading & words) / len(heading)
        whole = score == 1.0
        if not (whole and (len(heading) >= 2 or level) or (level and score >= 0.5)):
            continue
        key = (score, len(heading), -len(part.path))
        if best is None or key > best[0]:
            best = (key, part)
    return best[1] if best else None


_KIND_WORDS = (
    (
        "added",
        r"\b(?:added|appeared|new\s+(?:sections?|chapters?|parts?|headings?|warnings?|steps?))\b",
    ),
    ("removed", r"\b(?:removed|deleted|dropped|gone|no\s+longer|taken\s+out)\b"),
    ("moved", r"\b(?:moved|relocated)\b"),
    ("renamed", r"\b(?:renamed|retitled)\b"),
    ("changed", r"\b(?:reordered|re-ordered)\b"),
)
_ANY_CHANGE = re.compile(
    r"\b(?:chang\w*|different|differ\w*|modified|updated?|updates|edit\w*|revised|new|diff)\b"
)


def change_kinds(question: str) -> set[str] | None:
    """The kinds of change a question asks about ("what was added?": added), or None for any
    ("what changed?"). A general change word beside a kind adds the edits ("what changed or
    was removed?")."""
    text = question.casefold()
    kinds = {kind for kind, rx in _KIND_WORDS if re.search(rx, text)}
    if not kinds:
        return None
    if _ANY_CHANGE.search(re.sub(_KIND_WORDS[0][1], "", text)):
        kinds.add("changed")
    return kinds


def value_terms(
    question: str, *, documents: Iterable[str | None], part: NamedPart | None
) -> list[str]:
    """What is left of the question once the change words, the documents and the part are
    taken away: the value asked about (empty for "what changed in chapter 5?")."""
    taken = set(_FRAME)
    for name in documents:
        taken |= set(tokenize(name or ""))
    if part is not None:
        taken |= heading_parts(part.title)[1]
        taken |= set(tokenize(part.title))
    kept = [w for w in tokenize(question) if w not in taken and not _is_date_number(w)]
    return list(dict.fromkeys(kept))


def _is_date_number(word: str) -> bool:
    return bool(re.fullmatch(r"\d{4}(-\d{2}-\d{2})?|\d{1,2}(st|nd|rd|th)?|[0-9a-f]{6,}", word))
