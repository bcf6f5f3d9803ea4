"""A hedge restated as a certainty: "may leave a gap" summarized as "always leaves a gap",
"is recommended" as "is mandatory", "might gain" as "are certain to gain".

The absolute check (``check._absolutes``) asks whether a summary's absolute word has a word of
its group in the source; it cannot see an absolute the summary makes by replacing the
source's hedge with a word of certainty that the source uses elsewhere, or with a word it does
not check ("must", "required", "only ever"). This module compares the two sides of one aligned
pair: a hedge of the source sentence and a word of certainty of the summary sentence that
govern the same words (two content words in common within six each side), where the summary's
clause keeps no hedge and the source says nothing as certain about those words.
"""

from __future__ import annotations

import re

from indexer.lint.flags import LintFlag
from indexer.lint.text import Span, clauses, content, shared, words

_HEDGE = re.compile(
    r"\b(?:may|might|could|usually|typically|normally|generally|often|mostly|mainly|largely|"
    r"likely|probably|possibly|sometimes|occasionally|recommended|in general|tends? to|"
    r"in most cases|in some cases)\b",
    re.IGNORECASE,
)
_CERTAIN = re.compile(
    r"\b(?:must|always|never|invariably|required|mandatory|certain to|is certain|are certain|"
    r"guaranteed|only ever|ever|permanently|in every case|in all cases|regardless of)\b",
    re.IGNORECASE,
)
AROUND = 6  # content words each side of a hedge or a certainty that it governs
SHARED = 2  # content words a hedge and a certainty must govern in common


def _governs(text: str, cue: re.Match[str]) -> set[str]:
    """The content words within :data:`AROUND` content words each side of ``cue``."""
    before = [w for w in words(text[: cue.start()]) if content(w)][-AROUND:]
    after = [w for w in words(text[cue.end() :]) if content(w)][:AROUND]
    return content(" ".join(before + after))


def hedged_to_certain(sent: Span, sources: list[str]) -> list[LintFlag]:
    """Flags for certainties of ``sent`` that restate a hedge of one of ``sources`` (the
    source sentences it is aligned with) about which no source sentence is certain."""
    out: list[LintFlag] = []
    parts = [(s, k.text) for s in sources for k in clauses(s)]
    for clause in clauses(sent.text):
        if _HEDGE.search(clause.text):
            continue  # the summary keeps a hedge in this clause
        for cue in _CERTAIN.finditer(clause.text):
            mine = _governs(clause.text, cue)
            if any(_about(mine, k, _CERTAIN) for _, k in parts):
                continue  # the source says it with certainty too
            found = next(((s, h) for s, k in parts if (h := _about(mine, k, _HEDGE))), None)
            if found is None:
                continue
            source, hedge = found
            msg = f"the source hedges this ({hedge!r}); the summary says {cue.group(0)!r}"
            out.append(
                LintFlag(
                    "absolute", msg, sent.text, source,
                    summary_quote=cue.group(0), source_quote=hedge, rule="absolute.hedge",
                )
            )  # fmt: skip
            break
    return out


def _about(mine: set[str], clause: str, cues: re.Pattern[str]) -> str | None:
    """The first of ``cues`` in ``clause`` that governs words of ``mine``."""
    for m in cues.finditer(clause):
        if len(shared(mine, _governs(clause, m))) >= SHARED:
            return m.group(0)
    return None
