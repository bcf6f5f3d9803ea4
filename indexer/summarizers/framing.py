"""The extractive summarizer's own words: the frame it puts around what it quotes.

Everything else in an extractive summary is the source's text. These phrases are declared here,
used by the summarizer to write and by the citation check to leave out of what a source must
support: they say how the summary is built ("It also covers …", "… and 4 more."), not what the
source says.
"""

from __future__ import annotations

import re

ALSO_COVERS = "It also covers"
COVERS = "It covers"
PART_COVERS = "covers"
NOT_SUMMARIZED = "not summarized"
NO_STATEMENT = "no sentence of it stands alone to be quoted; see the source"
MORE_ITEMS = "and {n} more"
MORE_ROWS = "and further rows"
MORE_LINES = "and {n} more lines"

_FRAME = re.compile(
    r"^It (?:also )?covers\b|(?<=: )covers\b|, not summarized\.$|"
    r"no sentence of it stands alone to be quoted; see the source\.?$|"
    # "… and 4 more." also where a part's sentence goes on after the list it ends
    r";?\s*and (?:\d+ more(?: lines)?|further rows)(?:\.(?=\s)|\.?$)"
)


def without_frame(sentence: str) -> str:
    """The sentence without the summarizer's framing words (what its spans must support)."""
    return _FRAME.sub("", sentence).strip()
