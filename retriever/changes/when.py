"""Which two revisions a change question compares: a date, revision hashes, or the last two.

"since March", "since 2026-03-01", "since 1 February 2026", "this month", "last week",
"yesterday", "3 days ago" give a date: the question compares the revision that was served then
(the last one ingested by that date; the oldest kept one when the document is younger) with the
newest. A hexadecimal word of six or more characters that starts a kept revision's hash names
that revision ("since revision 9f8e7d", "between 1a2b3c4d and the current one"). Without either,
the question is about the latest change: the newest revision and the one before it.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

_MONTHS = {calendar.month_abbr[i].lower(): i for i in range(1, 13)}
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b(?:,?\s+(\d{{4}}))?")
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?")
_MONTH_YEAR = re.compile(
    rf"\b(?:since|in|from|after)\s+(?:early\s+|mid[- ]|late\s+)?{_MONTH}\b(?:\s+(\d{{4}}))?"
)
_AGO = re.compile(r"\b(\d+|a|an|one|two|three|four|five|six)\s+(day|week|month|year)s?\s+ago\b")
_LAST_N = re.compile(r"\b(?:last|past)\s+(\d+|two|three|four|five|six)\s+(day|week|month|year)s\b")
_RELATIVE = re.compile(r"\b(yesterday|today|(?:this|last|past)\s+(?:week|month|year))\b")
_HEX = re.compile(r"\b[0-9a-f]{6,32}\b")
_NAMED_HASH = re.compile(r"\b(?:revision|rev|since|from|between|and|to)\s+([0-9a-f]{6,32})\b")
_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}


@dataclass(frozen=True)
class Anchor:
    """Where a change question starts: a date, or revision prefixes, or neither."""

    since: datetime | None
    revisions: tuple[str, ...]
    text: str | None  # the words of the question that set it
    unknown: tuple[str, ...] = ()  # hash-like words that name no revision of the document

    def to_json(self) -> dict[str, object]:
        """The ``anchor`` of a comparison."""
        return {
            "since": self.since.isoformat() if self.since else None,
            "revisions": list(self.revisions),
            "from_words": self.text,
        }

    def note(self) -> str | None:
        """What the reader should know about words that looked like revisions."""
        if not self.unknown:
            return None
        return (
            f"{', '.join(self.unknown)} is not a revision of this document (kept or pruned):"
            " compared the last two"
        )


def anchor(question: str, *, now: datetime | None = None, known: tuple[str, ...] = ()) -> Anchor:
    """The date or revisions a question names.

    Args:
        question: The question.
        now: The present (default: the current time, UTC).
        known: Revision hashes (kept or pruned) a hexadecimal word may be a prefix of.
    """
    text = question.casefold()
    now = now or datetime.now(UTC)
    revs = tuple(
        w for w in _HEX.findall(text) if any(h.startswith(w) for h in known) and not w.isdigit()
    )
    if revs:
        return Anchor(None, revs, " ".join(revs))
    unknown = tuple(m[1] for m in _NAMED_HASH.finditer(text) if _hash_like(m[1]))
    found = _date(text, now)
    if found is None:
        return Anchor(None, (), None, unknown)
    when, words = found
    return Anchor(when, (), words, unknown)


def _hash_like(word: str) -> bool:
    return any(c.isdigit() for c in word) and any(c.isalpha() for c in word)


def _date(text: str, now: datetime) -> tuple[datetime, str] | None:
    if m := _ISO.search(text):
        return _at(int(m[1]), int(m[2]), int(m[3])), m[0]
    if m := _DAY_MONTH.search(text):
        return _dated(now, _month(m[2]), int(m[1]), m[3]), m[0]
    if m := _MONTH_DAY.search(text):
        return _dated(now, _month(m[1]), int(m[2]), m[3]), m[0]
    if m := _MONTH_YEAR.search(text):
        return _dated(now, _month(m[1]), 1, m[2]), m[0]
    if m := _AGO.search(text) or _LAST_N.search(text):
        n = _WORDS.get(m[1]) or int(m[1])
        return now - timedelta(days=n * _DAYS[m[2]]), m[0]
    if m := _RELATIVE.search(text):
        return _relative(m[1], now), m[0]
    return None


def _month(word: str) -> int:
    return _MONTHS[word[:3]]


def _at(year: int, month: int, day: int) -> datetime:
    day = min(day, calendar.monthrange(year, month)[1])
    return datetime(year, month, day, tzinfo=UTC)


def _dated(now: datetime, month: int, day: int, year: str | None) -> datetime:
    """A date without a year is the latest one not in the future."""
    if year:
        return _at(int(year), month, day)
    when = _at(now.year, month, day)
    return when if when <= now else _at(now.year - 1, month, day)


def _relative(words: str, now: datetime) -> datetime:
    start_of_day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if words == "today":
        return start_of_day
    if words == "yesterday":
        return start_of_day - timedelta(days=1)
    this, unit = words.split()
    if this == "this":
        if unit == "week":
            return start_of_day - timedelta(days=now.weekday())
        if unit == "month":
            return start_of_day.replace(day=1)
        return start_of_day.replace(month=1, day=1)
    return now - timedelta(days=_DAYS[unit])
