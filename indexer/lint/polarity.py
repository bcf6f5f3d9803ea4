"""A switch said the other way round: "off by default" summarized as "on by default".

Manuals state many facts as one of two opposite settings or outcomes (on/off, enabled/disabled,
accepted/rejected, ignored/honoured), and a summary that flips one says the opposite of its
source without any negation word, which :mod:`indexer.lint.negation` cannot see. A summary word
of such a pair is checked against the source sentences it restates: where a source sentence says
the opposite word about the same things (a content word in common within a few words of each),
and neither sentence also says the other word, the summary contradicts it. A negation in front
of a word reverses it ("not enabled" says "disabled"), so "is not enabled" for "is disabled"
agrees.
"""

from __future__ import annotations

import re

from indexer.lint.align import Candidate
from indexer.lint.flags import LintFlag
from indexer.lint.negation import explicit
from indexer.lint.text import Span, content, stem, words

# Opposite settings and outcomes, by stem. Kept to pairs whose two members cannot both hold of
# one thing: "before"/"after" or "minimum"/"maximum" name positions, not a setting's two states.
PAIRS = (
    ("on", "off"), ("enabl", "disabl"), ("allow", "disallow"), ("allow", "forbid"),
    ("allow", "prohibit"), ("permit", "forbid"), ("permit", "prohibit"), ("accept", "reject"),
    ("valid", "invalid"), ("support", "unsupport"), ("possibl", "impossibl"),
    ("ignor", "honour"), ("ignor", "honor"), ("ignor", "respect"), ("ignor", "obey"),
    ("includ", "exclud"), ("visibl", "hidden"), ("visibl", "invisibl"), ("true", "false"),
    ("set", "unset"), ("synchronous", "asynchronous"), ("succeed", "fail"),
    ("success", "failur"), ("lock", "unlock"), ("sensitiv", "insensitiv"),
    ("mandatory", "optional"), ("requir", "optional"), ("activ", "inactiv"),
)  # fmt: skip
OPPOSITE: dict[str, frozenset[str]] = {
    s: frozenset(b if a == s else a for a, b in PAIRS if s in (a, b))
    for s in {x for pair in PAIRS for x in pair}
}
_WORD = re.compile(r"[A-Za-z][A-Za-z-]*")
# "on" and "off" name a state only at the end of their phrase ("is on by default", "turned
# off, the cache ..."); followed by anything else they are a preposition or a particle.
_STATE_AFTER = re.compile(
    r"\s*(?:$|[,.;:)\]]|(?:by|and|or|but|when|if|unless|while|so|then|as)\b)", re.IGNORECASE
)
_WHETHER = re.compile(r"\bwhether\b", re.IGNORECASE)
# How far a negation before a word reverses it, and how far around a word its subject lies.
NEGATION_REACH = 3
AROUND = 4
SHARED = 1  # content words the two sentences share around the pair


def _polar(text: str) -> list[tuple[str, Span]]:
    """The words of ``text`` that belong to a pair and state one of its states, with stems."""
    out = []
    for m in _WORD.finditer(text):
        s = stem(m.group(0).lower())
        if s not in OPPOSITE or _WHETHER.search(" ".join(words(text[: m.start()])[-5:])):
            continue  # "whether it is enabled" states neither
        if s in ("on", "off") and not _STATE_AFTER.match(text, m.end()):
            continue  # a preposition or a particle: "on Linux", "stripped off before"
        out.append((s, Span(m.group(0), m.start(), m.end())))
    return out


def _negated(text: str, word: Span) -> bool:
    reach = " ".join(words(text[: word.start])[-NEGATION_REACH:])
    return bool(explicit(reach))


def _around(text: str, word: Span) -> set[str]:
    before = words(text[: word.start])[-AROUND:]
    after = words(text[word.end :])[:AROUND]
    return {w for w in content(" ".join(before + after)) if w not in OPPOSITE}


def flipped(sent: Span, candidates: list[Candidate], *, supports: float) -> list[LintFlag]:
    """Words of the summary sentence whose opposite a source sentence it restates says of the
    same things (module doc); ``supports`` is the alignment a source sentence needs."""
    mine = _polar(sent.text)
    if not mine:
        return []
    said = {s for s, _ in mine}
    out: list[LintFlag] = []
    for stem_, word in mine:
        if said & OPPOSITE[stem_]:
            continue  # the summary names both states ("enabled or disabled")
        for c in candidates:
            if c.score < supports:
                continue
            theirs = _polar(c.source.text)
            if any(s == stem_ for s, _ in theirs):
                continue  # the source says the summary's word too: no flip to point at
            opposite = next(((s, w) for s, w in theirs if s in OPPOSITE[stem_]), None)
            if opposite is None:
                continue
            _, other = opposite
            if _negated(sent.text, word) != _negated(c.source.text, other):
                continue  # "not enabled" for "disabled": the same state
            if len(_around(sent.text, word) & _around(c.source.text, other)) < SHARED:
                continue  # said of other things
            out.append(
                LintFlag(
                    "negation",
                    f"the source says {other.text!r} where the summary says {word.text!r}",
                    sent.text, c.source.text, summary_quote=word.text, source_quote=other.text,
                    rule="negation.flipped",
                )
            )  # fmt: skip
            break
    return out
