"""The extractive summarizer's own words: the frame it puts around what it quotes.

Everything else in an extractive summary is the source's text. These phrases are declared here,
used by the summarizer to write and by the citation check to leave out of what a source must
support: they say how the summary is built ("It also covers …", "… and 4 more."), not what the
source says.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

ALSO_COVERS = "It also covers"
COVERS = "It covers"
PART_COVERS = "covers"
NOT_SUMMARIZED = "not summarized"
NO_STATEMENT = "no sentence of it stands alone to be quoted; see the source"
MORE_ITEMS = "and {n} more"
MORE_ROWS = "and further rows"
MORE_LINES = "and {n} more lines"
CUT_CODE = re.compile(r"` and \d+ more lines\.$")  # code quoted by its first line only
MAX_NAMED = 10  # headings or terms named in one line

_FRAME = re.compile(
    r"^It (?:also )?covers\b|(?<=: )covers\b|, not summarized\.$|"
    r"no sentence of it stands alone to be quoted; see the source\.?$|"
    # "… and 4 more." also where a part's sentence goes on after the list it ends
    r";?\s*and (?:\d+ more(?: lines)?|further rows)(?:\.(?=\s)|\.?$)"
)


def without_frame(sentence: str) -> str:
    """The sentence without the summarizer's framing words (what its spans must support)."""
    return _FRAME.sub("", sentence).strip()


_NUMBERING = re.compile(
    r"^\s*(?:(?:chapter|section|appendix|part)\s+)?(?:\d+|[A-Z]|[IVX]+)(?:\.\d+)*\.?\s+(?=\S)",
    re.IGNORECASE,
)


def bare(title: str) -> str:
    """A heading without its numbering ("3.1.4. localhost Zone File" → "localhost Zone File")."""
    stripped = _NUMBERING.sub("", title, count=1).strip()
    return stripped or title.strip()


def names(titles: Sequence[str]) -> str:
    """Headings or terms named in one line: "a, b and c", the rest counted ("and 4 more")."""
    shown = [bare(t) for t in titles if t]
    if len(shown) > MAX_NAMED:
        rest = len(shown) - MAX_NAMED + 1
        shown = [*shown[: MAX_NAMED - 1], MORE_ITEMS.format(n=rest).removeprefix("and ")]
    if len(shown) <= 1:
        return "".join(shown)
    return f"{', '.join(shown[:-1])} and {shown[-1]}"
