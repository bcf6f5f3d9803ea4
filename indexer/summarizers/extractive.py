"""The offline default summarizer: salient sentences of the source, never invented text.

Sentences are scored by centrality (mean TF-IDF cosine similarity to the node's other sentences,
LexRank-style) with a small bonus for coming first in their passage, and picked greedily with
maximal marginal relevance so that near-duplicates (passage overlaps, repeated warnings) are
dropped. Sentences keep cross-references whole and lose their markup
(:mod:`indexer.summarizers.sentences`); a transcript's candidates are its content-bearing
statements, not its speaker turns (:mod:`indexer.summarizers.dialogue`). Chapter and document
summaries open with the outline of what they contain. TF-IDF rather
than sentence embeddings: embedding every sentence would roughly double the build's dominant cost.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from indexer.hashing import normalize
from indexer.summarizers.base import SummarizerIdentity, SummaryRequest, SummaryResult
from indexer.summarizers.dialogue import is_content, is_dialogue, without_speakers
from indexer.summarizers.sentences import is_prose, split_sentences, strip_markup
from indexer.tokens import count_tokens

# v2: sentences never cut inside parentheses, markup stripped, dialogue by content sentences.
PROMPT_VERSION = "extractive-v2"
_OUTLINE_PREFIX = "Contents: "
_MMR_LAMBDA = 0.7
_MAX_OUTLINE_ITEMS = 12
_INTRO_BONUS = 1.0


class ExtractiveSummarizer:
    """Picks central, non-redundant sentences up to a token budget."""

    def __init__(self, *, max_tokens: int = 160, prompt_version: str = PROMPT_VERSION) -> None:
        self.max_tokens = max_tokens
        self.identity = SummarizerIdentity("extractive", "tfidf-centrality", prompt_version)

    async def summarize(self, requests: Sequence[SummaryRequest]) -> list[SummaryResult]:
        return [self.summarize_one(r) for r in requests]

    def summarize_one(self, request: SummaryRequest) -> SummaryResult:
        """Summarize one node synchronously."""
        outline = ""
        if request.level in ("chapter", "document") and request.children:
            titles = [t for t, _ in request.children if t]
            shown = titles[:_MAX_OUTLINE_ITEMS]
            more = len(titles) - len(shown)
            outline = _OUTLINE_PREFIX + "; ".join(shown) + (f"; and {more} more." if more else ".")
        candidates = self._candidates(request)
        budget = self.max_tokens - (count_tokens(outline) if outline else 0)
        chosen = _select(candidates, budget) if budget > 8 else []
        body = " ".join(chosen)
        text = "\n".join(p for p in (outline, body) if p)
        if not text:
            text = request.title or "(no text)"
        n_in = sum(count_tokens(p) for p in request.passages) + sum(
            count_tokens(s) for _, s in request.children
        )
        return SummaryResult(
            key=request.key, text=text, input_tokens=n_in, output_tokens=count_tokens(text)
        )

    @staticmethod
    def _candidates(request: SummaryRequest) -> list[tuple[str, float]]:
        """Sentences with a position prior: first sentences of a source weigh a little more."""
        seen: set[str] = set()
        out: list[tuple[str, float]] = []
        sources = list(request.passages)
        for _, summary in request.children:
            lines = summary.split("\n")
            sources.append(" ".join(ln for ln in lines if not ln.startswith(_OUTLINE_PREFIX)))
        dialogue = is_dialogue(request.passages)
        # A chapter's or document's own text (its introduction, before the first sub-heading)
        # says what the part covers: its sentences weigh more than its children's summaries.
        intro = _INTRO_BONUS if request.level in ("chapter", "document") else 0.0
        for i, src in enumerate(sources):
            own = intro if i < len(request.passages) else 0.0
            if dialogue:
                src = without_speakers(src)
            for pos, raw in enumerate(split_sentences(src)):
                sent = strip_markup(raw)
                key = normalize(sent).lower()
                if key in seen or not is_prose(sent) or (dialogue and not is_content(sent)):
                    continue
                seen.add(key)
                out.append((sent, own + 1.0 / (1 + pos)))
        return out


def _select(candidates: list[tuple[str, float]], budget: int) -> list[str]:
    if not candidates:
        return []
    sentences = [s for s, _ in candidates]
    prior = np.array([p for _, p in candidates])
    if len(sentences) == 1:
        order = [0]
        sim = np.ones((1, 1))
    else:
        from sklearn.feature_extraction.text import TfidfVectorizer

        try:
            m = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit_transform(sentences)
        except ValueError:  # only stop words
            m = None
        sim = np.eye(len(sentences)) if m is None else (m @ m.T).toarray()
        centrality = (sim.sum(axis=1) - 1.0) / max(len(sentences) - 1, 1)
        score = centrality + 0.15 * prior
        order = _mmr(score, sim)
    chosen: list[int] = []
    used = 0
    for i in order:
        cost = count_tokens(sentences[i])
        if used + cost > budget:
            if not chosen and cost <= budget * 2:
                chosen.append(i)
            continue
        chosen.append(i)
        used += cost
    return [sentences[i] for i in sorted(chosen)]


def _mmr(score: np.ndarray, sim: np.ndarray) -> list[int]:
    remaining = list(range(len(score)))
    picked: list[int] = []
    while remaining and len(picked) < 40:
        if picked:
            redundancy = sim[np.ix_(remaining, picked)].max(axis=1)
        else:
            redundancy = np.zeros(len(remaining))
        values = _MMR_LAMBDA * score[remaining] - (1 - _MMR_LAMBDA) * redundancy
        best = remaining[int(np.argmax(values))]
        picked.append(best)
        remaining.remove(best)
    return picked
