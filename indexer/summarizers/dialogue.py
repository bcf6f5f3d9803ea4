"""Conversational sources (meeting and call transcripts) for the extractive summarizer.

Extracting "central" sentences from speaker turns gives a string of turns and disfluencies
("Technician: All right. When you say worse, what are we talking about?"), not a summary.
When most lines of a source open with a speaker label, the labels are dropped, fillers
removed, and only content-bearing sentences are candidates: statements (not questions), not
opening with a backchannel ("Yes", "Okay", "Thanks"), with enough content words or a figure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from indexer.summarizers.blocks import Block
from indexer.summarizers.cues import complete
from indexer.summarizers.drafts import Draft
from indexer.summarizers.sentences import sentence_spans

_SPEAKER = re.compile(r"^\s*([A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,3}|\[[^\]]{1,40}\])\s*:\s+", re.M)
_FILLERS = re.compile(
    r"\b(?:um+|uh+|erm+|hmm+|you know|I mean|sort of|kind of|like I said)\b,?\s*", re.I
)
_BACKCHANNEL = re.compile(
    r"^(?:yes|yeah|yep|no|okay|ok|right|sure|thanks|thank you|all right|alright|good morning|"
    r"good afternoon|hello|hi|great|fine|perfect|exactly|got it|i see|well|so|oh)\b",
    re.I,
)
_CONTENT_WORD = re.compile(r"\b[A-Za-z]{4,}\b")
_FIGURE = re.compile(r"\d")
_STOP = frozenset(
    [
        "that",
        "this",
        "with",
        "have",
        "from",
        "they",
        "them",
        "what",
        "when",
        "where",
        "which",
        "would",
        "could",
        "should",
        "there",
        "their",
        "about",
        "been",
        "were",
        "will",
        "just",
        "then",
        "than",
        "also",
        "very",
        "really",
        "because",
        "these",
        "those",
        "into",
        "some",
        "here",
        "thing",
        "things",
        "going",
        "know",
        "think",
        "yeah",
        "okay",
        "said",
        "tell",
        "told",
        "come",
        "came",
        "want",
        "make",
        "sure",
    ]
)
_MIN_TURNS = 3
_MIN_CONTENT_WORDS = 5


def is_dialogue(sources: Sequence[str]) -> bool:
    """Whether most non-empty lines (at least three) open with a speaker label."""
    lines = [ln for src in sources for ln in src.splitlines() if ln.strip()]
    turns = sum(1 for ln in lines if _SPEAKER.match(ln))
    return turns >= _MIN_TURNS and turns >= 0.5 * len(lines)


def without_speakers(text: str) -> str:
    """The text with speaker labels and fillers removed, one turn per paragraph."""
    text = _SPEAKER.sub("\n\n", text)
    return _FILLERS.sub("", text)


def speaker_end(turn: str) -> int:
    """Where the text of a turn starts: after its speaker label, if it opens with one."""
    m = _SPEAKER.match(turn)
    return m.end() if m else 0


def is_content(sentence: str) -> bool:
    """A statement carrying information: no question, no backchannel opening, enough content
    words (or a figure and a few)."""
    if sentence.rstrip().endswith("?") or _BACKCHANNEL.match(sentence.strip()):
        return False
    words = [w for w in _CONTENT_WORD.findall(sentence) if w.lower() not in _STOP]
    needed = _MIN_CONTENT_WORDS - (2 if _FIGURE.search(sentence) else 0)
    return len(words) >= needed


def dialogue_units(blocks: list[Block]) -> list[Draft]:
    """A transcript's units: each turn's content statements, its speaker label dropped."""
    out: list[Draft] = []
    for block in blocks:
        skip = speaker_end(block.text)
        for piece in sentence_spans(block.text[skip:], block.start + skip):
            if is_content(piece.text) and complete(piece.text):
                out.append(Draft([piece], [], False))
    return out
