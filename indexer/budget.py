"""What a document will cost, estimated before the expensive work, and the per-document budget.

Parsing is cheap; chunking, embedding and summarizing grow with the text. Right after the parse
(when an upload is accepted, and again when its job starts) :func:`estimate_cost` counts the
model tokens of a few samples of the text and scales them to the whole: tokens and passages to
embed, summaries to compute. :func:`check_budget` refuses a document over ``max_document_tokens``
with an error naming the setting, before a single passage is embedded.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from indexer.errors import TooLargeError
from indexer.parsers import ParsedDocument
from indexer.settings import Settings
from indexer.tokens import count_tokens

# Samples of the text whose tokens are counted (evenly spread, cut at whitespace by the tokenizer
# windows): enough for a stable ratio, far less work than tokenizing megabytes.
_SAMPLES = 4
_SAMPLE_CHARS = 16 * 1024


@dataclass(frozen=True)
class CostEstimate:
    """The work one document will need, estimated from its parsed text."""

    chars: int
    tokens: int
    passages: int
    summaries: int

    def to_json(self) -> dict[str, int]:
        """The estimate as a JSON-ready dict."""
        return asdict(self)


def estimate_tokens(text: str) -> int:
    """Model tokens of ``text``: exact for a short text, scaled from samples for a long one."""
    if len(text) <= _SAMPLES * _SAMPLE_CHARS:
        return count_tokens(text)
    step = len(text) // _SAMPLES
    sampled = [text[i * step : i * step + _SAMPLE_CHARS] for i in range(_SAMPLES)]
    ratio = sum(count_tokens(s) for s in sampled) / sum(len(s) for s in sampled)
    return math.ceil(ratio * len(text))


def estimate_cost(parsed: ParsedDocument, settings: Settings) -> CostEstimate:
    """Tokens and passages to embed and summaries to compute for ``parsed``."""
    tokens = estimate_tokens(parsed.text)
    stride = max(settings.chunk_tokens - settings.chunk_overlap, 1)
    passages = max(
        math.ceil(tokens / stride), math.ceil(len(parsed.text) / settings.chunk_max_chars)
    )
    sections = len(parsed.root.walk())
    # one per heading, plus the cluster levels of long flat runs (about passages / branching)
    summaries = sections + passages // max(settings.cluster_branching - 1, 1)
    return CostEstimate(
        chars=len(parsed.text), tokens=tokens, passages=passages, summaries=summaries
    )


def check_budget(settings: Settings, parsed: ParsedDocument, *, source: str) -> CostEstimate:
    """The document's cost estimate, if it fits the per-document budget.

    Raises:
        TooLargeError: More than ``max_document_tokens`` model tokens to embed; the message says
            what to change.
    """
    cost = estimate_cost(parsed, settings)
    limit = settings.max_document_tokens
    if cost.tokens > limit:
        raise TooLargeError(
            f"{source} would embed about {cost.tokens:,} model tokens ({cost.passages:,} "
            f"passages); the limit is {limit:,} per document (setting max_document_tokens): "
            "split the document, or raise max_document_tokens to accept it",
            detail={"limit": limit, "setting": "max_document_tokens", **cost.to_json()},
        )
    return cost
