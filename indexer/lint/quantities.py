"""Numbers with their units, read the way a manual writes them.

A quantity is a value (digits with thousands separators or decimals, or number words such as
"five" or "1.6 billion"), an optional range end ("2.0 - 8.0", "1 to 1000") and an optional unit.
Units of one dimension are compared in a base unit, so "5min" equals "five minutes" and "8192
bytes" differs from "8192 kilobytes". Codes and identifiers ("PX-2041-S", "E-12", "pg_xact",
"0777") are compared as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
}  # fmt: skip
_SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_MULTIPLE = {"twice": 2, "double": 2, "triple": 3, "half": 0.5}

# unit (lower case) -> (dimension, factor to the dimension's base unit)
_UNITS: dict[str, tuple[str, float]] = {}
for _names, _dim, _factor in (
    (("us", "µs", "microsecond", "microseconds"), "time", 1e-6),
    (("ms", "msec", "millisecond", "milliseconds"), "time", 1e-3),
    (("s", "sec", "secs", "second", "seconds"), "time", 1.0),
    (("min", "mins", "minute", "minutes"), "time", 60.0),
    (("h", "hr", "hrs", "hour", "hours"), "time", 3600.0),
    (("d", "day", "days"), "time", 86400.0),
    (("week", "weeks"), "time", 604800.0),
    (("month", "months"), "time", 2629800.0),  # a twelfth of a year, for comparing only
    (("year", "years"), "time", 31557600.0),
    (("b", "byte", "bytes"), "size", 1.0),
    (("kb", "kib", "kilobyte", "kilobytes"), "size", 1024.0),
    (("mb", "mib", "megabyte", "megabytes"), "size", 1024.0**2),
    (("gb", "gib", "gigabyte", "gigabytes"), "size", 1024.0**3),
    (("tb", "tib", "terabyte", "terabytes"), "size", 1024.0**4),
    (("bit", "bits"), "bits", 1.0),
    (("%", "percent", "per cent"), "percent", 1.0),
    (("°c",), "celsius", 1.0),
    (("°f",), "fahrenheit", 1.0),
    (("n·m", "nm"), "torque", 1.0),
):
    for _name in _names:
        _UNITS[_name] = (_dim, _factor)
# "m" is minutes in PostgreSQL's "1m" but metres elsewhere: only as a suffix glued to digits.
_GLUED_ONLY = {"m": ("time", 60.0)}

_WORD_NUM = "|".join(sorted(_SMALL, key=len, reverse=True))
_DIGITS = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_VALUE = (
    rf"(?:{_DIGITS}|(?:{_WORD_NUM})(?:[- ](?:{_WORD_NUM}))?\b)"
    r"(?:\s+(?:thousand|million|billion|trillion))?"
)
_UNIT_WORDS = "|".join(
    sorted((re.escape(u) for u in _UNITS if not u.startswith("°")), key=len, reverse=True)
)
# Git's "3.months.ago", "2.weeks.ago": a value joined to its unit word by dots.
_DOTTED = r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)"
_QUANTITY = re.compile(
    rf"(?<![\w.\-/@#%])(?P<value>{_VALUE})(?![.,]?\d)"
    rf"(?:\s*(?:-|–|to)\s*(?P<high>{_VALUE}))?"
    rf"(?:(?P<glued>(?:{_UNIT_WORDS}|m)(?![\w·]))|\s?(?P<unit>°[CF]|%|(?:{_UNIT_WORDS})(?![\w·]))"
    rf"|\.(?P<dotted>{_DOTTED})(?=\.))?"
    rf"(?![\w\-]*[\-_/][\w])",
    re.IGNORECASE,
)
# A word after a bare number that it counts ("1000 pages", "3 retries"): not a connective.
_COUNTED = re.compile(
    r"\s(?!(?:and|or|to|of|the|is|are|was|were|be|in|for|by|with|as|at|on|from|if|when|"
    r"which|that|but|than|per|times|bits?)\b)[a-z]{3,}s\b",
    re.IGNORECASE,
)
_COMPOUND = re.compile(
    rf"(?<![\w.\-])\d+(?:\.\d+)?-(?:{_UNIT_WORDS}|byte|bytes)(?![\w\-])", re.IGNORECASE
)
_MULTIPLE_RE = re.compile(r"\b(twice|double|triple|half)\b", re.IGNORECASE)
# A version of three or more parts ("2.4.23", "3.6.19") is an identifier, not an amount.
_CODE = re.compile(
    r"[A-Za-z]+[-_]?\d[\w.-]*|\d+[-_][\w-]*[A-Za-z][\w-]*|0\d+"
    r"|(?<![\w.])\d+(?:\.\d+){2,}(?![\w]|\.\d)"
)


@dataclass(frozen=True)
class Quantity:
    """A value as written, what it means, and where it is."""

    text: str
    start: int
    end: int
    value: float
    high: float | None
    dimension: str | None
    base: float  # the value in the dimension's base unit (the value itself without a unit)
    counted: bool = False  # a bare number that counts what follows it ("1000 pages")


def _number(text: str) -> float | None:
    t = text.lower().replace(",", "").strip()
    scale = 1.0
    for name, factor in _SCALE.items():
        if t.endswith(name):
            scale, t = factor, t[: -len(name)].strip()
    try:
        return float(t) * scale
    except ValueError:
        pass
    total = 0.0
    for part in re.split(r"[- ]", t):
        if part not in _SMALL:
            return None
        total += _SMALL[part]
    return total * scale


def _unhyphen(text: str) -> str:
    """A compound amount ("a 4-byte read", "a 5-minute delay") as the amount it is ("4 byte"),
    offsets kept."""
    return _COMPOUND.sub(lambda m: m.group(0).replace("-", " ", 1), text)


def quantities(text: str) -> list[Quantity]:
    """Every quantity in ``text``: digits, number words, ranges and multiples with units."""
    out: list[Quantity] = []
    written = text
    # "non-zero" reads as the "zero" it negates; the replacement keeps every offset.
    text = re.sub(r"\bnon-?zero\b", lambda m: "non zero"[-len(m.group(0)) :], text, flags=re.I)
    text = _unhyphen(text)
    for m in _QUANTITY.finditer(text):
        word = m.group("value")
        if word.lower() == "one" and not (m.group("unit") or m.group("glued")):
            continue  # "one of the keys" is an article, not an amount
        value = _number(word)
        if value is None:
            continue
        high = _number(m.group("high")) if m.group("high") else None
        unit = (m.group("unit") or m.group("glued") or m.group("dotted") or "").lower()
        known = _UNITS.get(unit) or _GLUED_ONLY.get(unit)
        dim, factor = known if known and not (m.group("unit") and unit == "m") else (None, 1.0)
        end = m.end()
        as_written = written[m.start() : end]
        counted = dim is None and _COUNTED.match(text, end) is not None
        out.append(Quantity(as_written, m.start(), end, value, high, dim, value * factor, counted))
    for m in _MULTIPLE_RE.finditer(text):
        v = float(_MULTIPLE[m.group(1).lower()])
        out.append(Quantity(m.group(0), m.start(), m.end(), v, None, "multiple", v))
    return out


def codes(text: str) -> set[str]:
    """Identifiers with digits in them ("PX-2041-S", "E-12", "0777", versions such as
    "2.4.23"), compared as written."""
    # A sentence's full stop or a dash after the identifier is not part of it.
    return {c.lower().rstrip(".-") for c in _CODE.findall(_unhyphen(text))}


def matches(q: Quantity, others: list[Quantity]) -> bool:
    """True when ``others`` states the same amount as ``q`` (units compared in base units);
    both ends of a range must be stated."""
    if q.high is not None:
        low = Quantity(q.text, q.start, q.end, q.value, None, q.dimension, q.base)
        ratio = q.base / q.value if q.value else 1.0
        high = Quantity(q.text, q.start, q.end, q.high, None, q.dimension, q.high * ratio)
        return _matches_one(low, others) and _matches_one(high, others)
    return _matches_one(q, others)


def _matches_one(q: Quantity, others: list[Quantity]) -> bool:
    for o in others:
        if q.dimension and o.dimension:
            if q.dimension == o.dimension and _close(q.base, o.base):
                return True
            continue
        if (q.dimension and o.counted) or (o.dimension and q.counted):
            continue  # "1000 kilobytes" is not "1000 pages"
        if _close(q.value, o.value) or (o.high is not None and _close(q.value, o.high)):
            return True
    return any(
        o.high is not None
        and q.dimension
        and o.dimension == q.dimension
        and _close(q.base, o.high * (o.base / o.value if o.value else 1.0))
        for o in others
    )


def nearest(q: Quantity, others: list[Quantity]) -> Quantity | None:
    """The source quantity ``q`` most likely changed: same value, else same dimension."""
    for o in others:
        if _close(q.value, o.value):
            return o
    same = [o for o in others if q.dimension and o.dimension == q.dimension]
    return same[0] if same else None


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


_BARE_UNIT = re.compile(
    r"(?<![\w-])(microseconds?|milliseconds?|seconds|minutes|hours|days|weeks|bytes|kilobytes|"
    r"megabytes|gigabytes|terabytes)(?![\w-])",
    re.IGNORECASE,
)


def bare_units(text: str, *, with_names: bool = False) -> Any:
    """The units ``text`` names in words ("taken as milliseconds"), as (dimension, factor);
    with ``with_names`` a dict from the word as written to its unit."""
    found = {m.group(1): _UNITS[m.group(1).lower()] for m in _BARE_UNIT.finditer(text)}
    return found if with_names else set(found.values())


ORDINALS = ("first", "second", "third", "fourth", "fifth", "last", "final", "penultimate")
_ORDINAL = re.compile(rf"(?<![\w-])(?:{'|'.join(ORDINALS)})(?![\w-])", re.IGNORECASE)


def ordinals(text: str) -> list[tuple[str, int, int]]:
    """The positions ``text`` names ("the first process", "listed last"): word ("final" as
    "last"), start, end."""
    same = {"final": "last"}
    return [
        (same.get(w := m.group(0).lower(), w), m.start(), m.end()) for m in _ORDINAL.finditer(text)
    ]
