"""Which questions are about change: explicit cues, each with a weight, summed against a threshold.

A question about change asks what is different between two revisions ("what changed", "is the
torque different in the new revision?", "has the seal section been moved?"). Retrieval would
answer it with today's text; a comparison answers it from the diff. The router reads English
cues that mark a change *as the question* (a change verb in the past or perfect, "what is new",
"any changes", "the same as before") and cues that anchor it in the revision history ("since
March", "the previous revision", "no longer"). A verb of change used as an instruction ("how do
I change the seal?") or a noun ("undo the change") is not a cue. Weights: 1.0 for a cue that is
the question by itself; 0.4–0.6 for one that needs another. The response names the cues that
fired and their sum, so a wrong route is explained by the rule that caused it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from retriever.answers import RouteReading

THRESHOLD = 1.0
_DONE = (
    r"(?:changed|updated|revised|modified|added|removed|deleted|dropped|moved|renamed|"
    r"reordered|edited|altered|replaced|rewritten|reworded|amended|corrected)"
)
_DIFFERENT = r"(?:different|differs?|changed|new(?![-\w]))"
_REVISION_NOUN = r"(?:revisions?|versions?|editions?|releases?|issues?|uploads?|manuals?)"
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)

_CUES: tuple[tuple[str, float, str], ...] = (
    # "what changed", "what's new", "what has been removed", "what did they change"
    (
        "what_changed",
        1.0,
        r"\bwhat(?:'s|\s+is|\s+are|\s+has|\s+have|\s+was|\s+were|\s+got|"
        r"\s+did\s+(?:they|you|we|the\s+authors))?(?:\s+(?:been|exactly|actually|else|all))*"
        rf"\s+(?:{_DONE}|change|{_DIFFERENT})\b",
    ),
    # "what changes were made", "what are the changes", "what edits"
    (
        "what_changes",
        1.0,
        r"\bwhat(?:'s|\s+is|\s+are|\s+were)?(?:\s+the)?\s+(?:changes|edits|updates|"
        r"modifications|amendments)\b",
    ),
    # "which sections were removed", "which passages changed"
    (
        "which_changed",
        1.0,
        r"\bwhich\s+(?:\w+\s+){0,3}?(?:(?:were|was|have\s+been|has\s+been|got|are|is)\s+)"
        rf"(?:\w+\s+)?(?:{_DONE}|new(?![-\w]))\b|\bwhich\s+\w+\s+(?:changed|moved)\b",
    ),
    # "has the torque changed", "have the steps been reordered"
    (
        "perfect",
        1.0,
        rf"\b(?:has|have|had)\s+(?:(?!to\b|be\b)[\w'·-]+\s+){{0,7}}?(?:been\s+)?{_DONE}\b",
    ),
    # "everything that changed", "anything that was removed"
    (
        "that_changed",
        1.0,
        r"\b(?:everything|anything|something|all|whatever)\s+(?:that\s+|which\s+)?"
        rf"(?:has\s+|have\s+|was\s+|were\s+|got\s+)?(?:been\s+)?{_DONE}\b",
    ),
    # "did the chapter change", "did the instructions get updated"
    (
        "did_change",
        1.0,
        rf"\bdid\s+(?:[\w'·-]+\s+){{0,6}}?(?:change|get\s+{_DONE}|differ|move)\b",
    ),
    # "any changes to", "list the changes", "the diff", "changelog"
    (
        "changes_noun",
        1.0,
        r"\b(?:any|all|list(?:\s+of)?|show(?:\s+me)?|summar\w+)\s+(?:the\s+)?(?:changes|edits|"
        r"updates|differences|modifications)\b|\b(?:diff|changelog|change\s+log)\b",
    ),
    ("same_as_before", 1.0, r"\b(?:same|unchanged)\s+as\s+(?:before|previously|in\s+the)\b"),
    # a yes/no question about a state of change: needs an anchor or a part
    ("is_different", 0.6, rf"^(?:is|are|was|were)\b.{{0,90}}\b(?:{_DONE}|{_DIFFERENT})\b"),
    ("the_changes", 0.6, r"\bthe\s+(?:changes|differences|edits|updates)\b"),
    ("compare", 0.5, r"\bcompar(?:e[ds]?|ing|ison)\b|\bdifferences?\b|\bvs\.?\b|\bversus\b"),
    (
        "part_changed",
        0.5,
        r"\b(?:sections?|chapters?|headings?|paragraphs?|steps?|pages?|tables?|appendix|"
        rf"warnings?)\b.{{0,40}}\b{_DONE}\b",
    ),
    ("any_new", 0.5, r"\b(?:any(?:thing)?|something)\s+new\b"),
    # anchors in the revision history
    (
        "revision",
        0.6,
        r"\b(?:new|newer|newest|latest|last|previous|prior|old|older|earlier|current|updated|"
        rf"revised|two\s+latest|last\s+two)\s+{_REVISION_NOUN}\b|\brevisions?\s+[0-9a-f]{{6,}}\b"
        r"|\bbetween\s+(?:the\s+)?(?:two\s+)?(?:revisions|versions|editions)\b",
    ),
    (
        "since",
        0.6,
        r"\bsince\s+(?:the\s+)?(?:last|previous|prior|earlier|old|revision|version|rev\b|"
        rf"yesterday|today|this|then|\d|{_MONTH}\b)",
    ),
    ("no_longer", 0.6, r"\b(?:no\s+longer|anymore|any\s+more)\b"),
    ("now", 0.4, r"\b(?:now|nowadays|these\s+days|before)\s*[?.!]?$"),
)
_COMPILED = tuple((name, weight, re.compile(rx)) for name, weight, rx in _CUES)
_QUOTES = str.maketrans({"’": "'", "‘": "'", "`": "'"})

Route = Literal["comparison", "retrieval"]


@dataclass(frozen=True)
class Routing:
    """Where a query goes, and why.

    Attributes:
        route: ``comparison`` (answered from the diff) or ``retrieval``.
        score: The sum of the weights of the cues that fired.
        rules: The names of those cues.
        source: ``rule`` (the cues decided) or ``request`` (the request forced the route).
    """

    route: Route
    score: float
    rules: tuple[str, ...]
    source: Literal["rule", "request"] = "rule"

    def reading(self) -> RouteReading:
        """The ``route`` of a query answer."""
        return RouteReading(
            route=self.route,
            score=round(self.score, 3),
            threshold=THRESHOLD,
            rules=list(self.rules),
            source=self.source,
        )


def cues(question: str) -> list[tuple[str, float]]:
    """The change cues a question holds, with their weights."""
    text = " ".join(question.casefold().translate(_QUOTES).split())
    return [(name, weight) for name, weight, rx in _COMPILED if rx.search(text)]


def route(question: str, *, forced: str = "auto") -> Routing:
    """Route a question: ``forced`` (``comparison`` or ``retrieval``) wins over the cues."""
    found = cues(question)
    score = sum(w for _, w in found)
    names = tuple(n for n, _ in found)
    if forced in ("comparison", "retrieval"):
        return Routing(forced, score, names, "request")  # type: ignore[arg-type]
    return Routing("comparison" if score >= THRESHOLD else "retrieval", score, names)
