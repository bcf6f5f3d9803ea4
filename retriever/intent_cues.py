"""What a question's wording says about the scope it asks for: cue features of the intent model.

A question about a value, an option or a step names specific things (numbers, flags, paths,
identifiers, "default", "how many"); a question about a part or the whole of a document asks
for an overview ("summarize", "overview", "what does … cover", "main topics"), names a part of
the document ("chapter 4", "section 3.2", "this manual") or asks how things relate. These are
properties of English questions, not of any one corpus; each cue is one feature of the intent
model (:mod:`retriever.intent`), whose weights are learned.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_CUES: tuple[tuple[str, str], ...] = (
    # asks for a condensed account
    (
        "summarize",
        r"\b(summar\w*|overview|outline|gist|recap|synopsis|tl;?dr|in a nutshell|"
        r"high[- ]level|big picture|brief(ly)?|at a glance|rundown|run-?down|digest)\b",
    ),
    # asks what a text is about or covers
    (
        "about",
        r"\b(about|cover(s|ed|ing)?|deal(s)? with|address(es)?|discuss(es|ed)?|"
        r"go(es)? over|talk(s|ed)? about|purpose|intended for|scope|contents?|"
        r"introduc\w*|what can i learn|learn from)\b",
    ),
    # asks for the main points or topics
    ("topics", r"\b(topics?|themes?|main points?|key points?|takeaways?|highlights?|agenda)\b"),
    # names the text as a whole
    (
        "whole",
        r"\b(this|the|whole|entire|full)\s+(document|doc|manual|guide|text|file|page|"
        r"reference|handbook|spec(ification)?|meeting|call|transcript|discussion|article|"
        r"paper|notes?|book)\b|\b(whole|entire)\s+thing\b",
    ),
    # asks whether a document is the one to read ("is this the right manual for …?")
    (
        "which_document",
        r"\b(is|are)\s+(this|these|that|it)\s+(\w+\s+){0,2}(document|doc|docs|manual|guide|page|"
        r"spec(ification)?|reference|handbook|file|place)\b|\bright\s+(document|doc|docs|"
        r"manual|guide|page|spec(ification)?|reference|handbook|place)\b|"
        r"\bshould i (be )?(read|reading|look at|start with)\b|\bworth reading\b",
    ),
    # names a part of a document
    ("part", r"\b(chapter|section|part|appendix|subsection)\b|§"),
    # names a numbered part ("chapter 4", "section 3.2", "§ 5")
    ("numbered", r"\b(chapter|section|part|appendix)\s+[\dA-Z]+(\.\d+)*\b|§\s*\d"),
    # a bare dotted number: a section ("see 3.2") as often as a version ("bash 3.2")
    ("dotted_number", r"\b\d+\.\d+(\.\d+)*\b"),
    # asks how things relate or differ
    (
        "relate",
        r"\b(relat\w*|differ\w*|compar\w*|versus|vs\.?|contrast|interact\w*|together|"
        r"in common|similar\w*|distinguish)\b",
    ),
    # asks for an explanation of a process or concept
    (
        "explain",
        r"\b(explain\w*|describe\w*|walk me through|how does .+ work|how do .+ work|"
        r"process|procedure|approach|concept\w*|mechanism|architecture|design|workflow)\b",
    ),
    # asks for one fact
    (
        "fact",
        r"\b(default|value|option|flag|setting|parameter|limit|maximum|minimum|max|min|"
        r"how many|how much|how long|which|what port|exit (code|status)|error|syntax|"
        r"name of|called|exactly|specific\w*|version|size|timeout|number of|format of)\b",
    ),
    # asks what to do
    ("howto", r"\b(how (do|can|should) (i|we|you)|how to|can i|should i|is it possible)\b"),
)
_COMPILED = tuple((name, re.compile(pattern, re.IGNORECASE)) for name, pattern in _CUES)

# Tokens that only a specific question names: flags, paths, numbers, identifiers, code.
_SPECIFIC_TOKEN = re.compile(
    r"(?<!\w)--?[A-Za-z][\w-]*"  # command-line flags
    r"|(?:^|\s)[~./]?[\w.-]+/[\w./-]+"  # paths
    r"|\b\d+(?:[.,:]\d+)*\s*(?:[a-zA-Z%°]+\b)?"  # numbers with units
    r"|\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z]\w*\b"  # snake_case, camelCase
    r"|[$`=<>{}\[\]()]"  # code punctuation
)
_WORD = re.compile(r"\w+")

CUE_NAMES: tuple[str, ...] = (
    *(name for name, _ in _CUES),
    "specific_tokens",
    "length",
    "question_mark",
)


def cue_features(text: str) -> list[float]:
    """One value per :data:`CUE_NAMES`: cues 0/1, then counts and flags on a small scale.

    Whether the request is scoped to a document is deliberately not a feature: a chatbot that
    knows the user's manual scopes every question, specific or not.
    """
    values = [1.0 if pattern.search(text) else 0.0 for _, pattern in _COMPILED]
    words = len(_WORD.findall(text))
    values.append(min(len(_SPECIFIC_TOKEN.findall(text)), 4) / 4.0)
    values.append(min(words, 30) / 30.0)
    values.append(1.0 if "?" in text else 0.0)
    return values


def named_numbers(text: str) -> Sequence[str]:
    """Section numbers the question names ("3.2", "chapter 4" → "4")."""
    found = re.findall(r"\b(?:chapter|section|part|appendix)\s+([\dA-Z]+(?:\.\d+)*)", text, re.I)
    found += re.findall(r"\b(\d+(?:\.\d+)+)\b", text)
    return list(dict.fromkeys(found))
