"""Cluster titles: the terms that set a cluster apart from its siblings (class-based TF-IDF).

Each cluster is one "document" made of its passages; a term scores by its frequency inside the
cluster times ``log(1 + mean cluster length / its frequency over all siblings)`` (the c-TF-IDF of
BERTopic), so words every sibling shares (speaker names, the product name) do not win.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_WORD = re.compile(r"[a-z][a-z0-9'-]*[a-z0-9]")
_N_TERMS = 3
_FALLBACK_WORDS = 6

# Short English function words plus conversational filler that transcripts are full of.
_STOP_WORDS = """
    a about above after again against all almost also although always am among an and another any
    anyone anything are around as at away back be because been before being below between both but
    by can cannot could did do does doing done down during each either else enough even ever every
    few first for from further get gets getting give given go goes going gone good got had has have
    having he her here hers herself him himself his how however i if in into is it its itself just
    know last least less let like likely made make makes many may me might more most much must my
    myself need needs never new next no nor not now of off often okay ok on once one only or other
    others our ours ourselves out over own per perhaps put quite rather really right said same say
    says see seen shall she should since so some something still such sure take than that the their
    theirs them themselves then there these they thing things think this those though through thus
    to too two under until up upon us use used uses using very was way we well were what when where
    whether which while who whom whose why will with within without would yes yeah yet you your
    yours yourself yourselves it's that's don't i'm we're you're they're there's can't won't isn't
    didn't doesn't i've we've let's i'll we'll
"""
_STOP = frozenset(_STOP_WORDS.split())


def term_counts(text: str) -> Counter[str]:
    """Content words of a text (lowercased, stop words and one-letter words dropped)."""
    return Counter(w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2)


def cluster_titles(
    counts: Sequence[Counter[str]], *, fallbacks: Sequence[str] = (), n_terms: int = _N_TERMS
) -> list[str]:
    """One title per sibling cluster from its term counts, e.g. ``"hive, queen, brood"``.

    Args:
        counts: Term counts of each sibling cluster (the sum over its passages).
        fallbacks: Per cluster, a text whose first words title it when it has no content words.
        n_terms: Terms per title.

    Returns:
        Titles in the order of ``counts``; ties between terms are broken alphabetically, so
        the same input always gives the same titles.
    """
    total: Counter[str] = Counter()
    for c in counts:
        total.update(c)
    mean_len = sum(total.values()) / max(len(counts), 1)
    # A word every sibling uses (a speaker's name in a transcript) does not tell them apart.
    everywhere: set[str] = set()
    if len(counts) >= 3:
        everywhere = {t for t in total if all(t in c for c in counts)}
    titles = []
    for i, c in enumerate(counts):
        size = sum(c.values())
        if not size:
            words = (fallbacks[i] if i < len(fallbacks) else "").split()[:_FALLBACK_WORDS]
            titles.append(" ".join(words) + ("…" if words else "(no words)"))
            continue
        scored = sorted(
            (t in everywhere, -(n / size) * math.log(1 + mean_len / total[t]), t)
            for t, n in c.items()
        )
        titles.append(", ".join(t for _, _, t in scored[:n_terms]))
    return titles
