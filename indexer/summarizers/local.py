"""The ``local`` backend: a chat model run in-process with ``transformers`` (CPU, no compiler).

Loads a GGUF file (``gguf_file=``; transformers de-quantizes it to float32, which needs the
``gguf`` and ``accelerate`` packages: ``pip install 'overstory[local]'``) or a transformers model
folder, from local files only. The model is loaded on the first summary, not at start, so that
commands which end up computing nothing do not pay for it. Generation is greedy (deterministic)
and runs in a worker thread so the async summarizer interface holds; one generation at a time,
since a CPU forward pass already uses every core torch is given.
"""

from __future__ import annotations

import asyncio
import importlib.util
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexer.errors import ConfigError
from indexer.summarizers.chat import ChatSummarizer
from indexer.summarizers.chat_model import Completion
from indexer.summarizers.modelfiles import model_name, resolve_model_path
from indexer.summarizers.prompts import Message, words_for

if TYPE_CHECKING:
    from indexer.settings import Settings

INSTALL = "pip install 'overstory[local]'"


def require_packages(names: list[str], install: str) -> None:
    """Fail with the install command when one of ``names`` is not importable.

    Raises:
        ConfigError: A package is missing.
    """
    missing = [n for n in names if importlib.util.find_spec(n) is None]
    if missing:
        raise ConfigError(
            f"the summarizer needs {', '.join(missing)}: {install}",
            detail={"missing": missing, "install": install},
        )


class TransformersChatModel:
    """A causal language model loaded with transformers."""

    def __init__(self, path: Path, *, context_tokens: int, threads: int = 1) -> None:
        self.path = path
        self.threads = threads
        self.name = model_name(path)
        self.context_tokens = context_tokens
        self._lock = threading.Lock()
        self._tokenizer: Any = None
        self._model: Any = None

    async def prepare(self) -> None:
        """Load the model (about 25 s for SmolLM2-135M on 2 cores) in a worker thread."""
        if self._model is None:
            await asyncio.to_thread(self.load)

    def load(self) -> None:
        """Load tokenizer and weights, once."""
        with self._lock:
            if self._model is not None:
                return
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            if self.path.is_file():
                where, extra = str(self.path.parent), {"gguf_file": self.path.name}
            else:
                where, extra = str(self.path), {}
            try:
                tokenizer = AutoTokenizer.from_pretrained(where, local_files_only=True, **extra)
                model = AutoModelForCausalLM.from_pretrained(
                    where, local_files_only=True, dtype=torch.float32, **extra
                )
            except (OSError, ValueError, ImportError) as exc:
                raise ConfigError(f"cannot load the summarizer model {self.path}: {exc}") from exc
            model.eval()
            self._tokenizer, self._model = tokenizer, model

    async def close(self) -> None:
        """Nothing to release: the model stays loaded for the next batch."""

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` for this model's own tokenizer."""
        self.load()
        return len(self._tokenizer.encode(text, add_special_tokens=False))

    async def complete(self, messages: list[Message], *, max_tokens: int) -> Completion:
        """Greedy generation in a worker thread."""
        return await asyncio.to_thread(self._generate, messages, max_tokens)

    def _generate(self, messages: list[Message], max_tokens: int) -> Completion:
        import torch

        self.load()
        tok = self._tokenizer
        with self._lock:
            if getattr(tok, "chat_template", None):
                enc = tok.apply_chat_template(
                    messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
                )
            else:
                prompt = "\n\n".join(m["content"] for m in messages) + "\n\nSummary:"
                enc = tok(prompt, return_tensors="pt")
            n_in = int(enc["input_ids"].shape[1])
            # Torch's thread count is per process and the embedder sets its own: restore it.
            previous = torch.get_num_threads()
            torch.set_num_threads(self.threads)
            try:
                with torch.inference_mode():
                    out = self._model.generate(
                        **enc,
                        max_new_tokens=max_tokens,
                        do_sample=False,
                        repetition_penalty=1.1,
                        pad_token_id=tok.pad_token_id
                        if tok.pad_token_id is not None
                        else tok.eos_token_id,
                    )
            finally:
                torch.set_num_threads(previous)
        new = out[0, n_in:]
        text = tok.decode(new, skip_special_tokens=True)
        finish = "length" if len(new) >= max_tokens else "stop"
        return Completion(text, n_in, int(len(new)), finish)


def make_local_summarizer(settings: Settings) -> ChatSummarizer:
    """The ``local`` backend configured from ``settings``.

    Raises:
        ConfigError: transformers, torch, gguf or accelerate is missing, or no model is found.
    """
    path = resolve_model_path(settings.summarizer_model_path, allow_folder=True)
    needed = ["torch", "transformers"]
    if path.is_file():
        needed += ["gguf", "accelerate"]
    require_packages(needed, INSTALL)
    return ChatSummarizer(
        TransformersChatModel(
            path,
            context_tokens=settings.summarizer_context_tokens,
            threads=settings.summarizer_threads,
        ),
        backend="local",
        words=words_for(settings.summary_tokens),
        max_new_tokens=settings.summarizer_max_new_tokens,
        concurrency=1,
    )
