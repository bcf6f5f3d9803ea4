"""Key facts: what a section's summary must keep because a reader would act on it.

A value with its unit ("defaults to 2 s", "up to 10,000 packets per second"), a default, a limit,
and a rule (must, never, required, do not) — with the conditions the sentence states, since the
unit keeps its whole sentence. :func:`fact_weight` counts the kinds a text holds.
"""

from __future__ import annotations

import re

_UNIT_WORDS = (
    "ns|µs|us|ms|s|sec|secs|second|seconds|min|mins|minute|minutes|h|hr|hrs|hour|hours|day|days|"
    "week|weeks|month|months|year|years|b|byte|bytes|kb|kib|mb|mib|gb|gib|tb|tib|bit|bits|kbit|"
    "mbit|gbit|kbps|mbps|gbps|hz|khz|mhz|ghz|v|mv|kv|a|ma|w|kw|mw|wh|kwh|n|nm|n·m|bar|psi|pa|kpa|"
    "mpa|°c|°f|c|f|k|mm|cm|m|km|in|ft|l|ml|rpm|dpi|ppm|percent|%|packets|packet|requests|"
    "connections|entries|lines|characters|chars|digits|times|retries|attempts|threads|"
    "processes|files|pages|items|rows|columns|users|clients|servers|hosts|ports|bytes/s"
)
_VALUE = re.compile(
    rf"(?<![\w.])\d+(?:[.,]\d+)*\s*(?:{_UNIT_WORDS})(?![\w])|(?<![\w.])\d+(?:\.\d+)?\s*%",
    re.IGNORECASE,
)
_DEFAULT = re.compile(r"\bdefault(?:s|ed)?\b|\bby default\b", re.IGNORECASE)
_LIMIT = re.compile(
    r"\b(?:maximum|minimum|at most|at least|no more than|no less than|up to|limit(?:s|ed)?|"
    r"exceed(?:s|ed)?|must not exceed|greater than|less than|between \d)\b",
    re.IGNORECASE,
)
_RULE = re.compile(
    r"\b(?:must|must not|never|always|required|requires|shall|do not|don't|cannot|can't|"
    r"should not|shouldn't|only if|only when|unless|mandatory|forbidden|not allowed|"
    r"is not supported|are not supported)\b",
    re.IGNORECASE,
)


def fact_weight(text: str) -> int:
    """How many kinds of key fact ``text`` holds (0–4): value with a unit, default, limit, rule."""
    return sum(
        1 for pattern in (_VALUE, _DEFAULT, _LIMIT, _RULE) if pattern.search(text) is not None
    )
