"""The optional judge: a chat model asked which statements of a summary its source does not
support, or restates without a condition, negation or number the source attaches.

The model answers in JSON (``{"issues": [{"statement", "kind", "source", "why"}]}``; the
``openai`` backend asks the server for a JSON object). An answer is read tolerantly — the first
JSON object in the text — and checked: an issue whose statement is not words of the summary is
dropped (a small model invents), unknown kinds become ``unsupported``. The judge's flags carry
``origin = "judge"``. It is slow (one model call per summary), so the service runs it after a
publish in the background and only ever shows cached answers (``api/service/judge_cache.py``).
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from pydantic import BaseModel, ValidationError

from indexer.errors import SummarizerError
from indexer.lint.flags import LintFlag
from indexer.lint.text import find_phrase, sentences
from indexer.settings import Settings
from indexer.summarizers.chat_model import ChatModel

JUDGE_VERSION = "judge-1"
KINDS = ("unsupported", "condition", "negation", "number", "absolute")
_SYSTEM = (
    "You check a summary of a technical manual against its source text. List every statement "
    "of the summary that the source does not support, and every statement that drops a "
    "condition, limit, qualifier or negation the source attaches to it, or changes a number or "
    "unit. Quote the summary's exact words. Answer with one JSON object and nothing else: "
    '{"issues": [{"statement": "<exact words of the summary>", "kind": "unsupported|condition|'
    'negation|number|absolute", "source": "<the source sentence it restates, or null>", '
    '"why": "<one short sentence>"}]}. Answer {"issues": []} when the summary is faithful.'
)
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


class JudgeIssue(BaseModel):
    """One statement the judge found wanting."""

    statement: str
    kind: str = "unsupported"
    source: str | None = None
    why: str = ""


class JudgeAnswer(BaseModel):
    """The judge's whole answer."""

    issues: list[JudgeIssue] = []


def parse_answer(text: str, summary: str, sources: list[str]) -> list[LintFlag]:
    """The flags of a judge's answer; [] for an answer that is no JSON or no such object."""
    match = _OBJECT.search(text)
    if match is None:
        return []
    try:
        answer = JudgeAnswer.model_validate(json.loads(match.group(0)))
    except (ValueError, ValidationError):
        return []
    joined = "\n".join(sources)
    flags: list[LintFlag] = []
    for issue in answer.issues:
        quote = find_phrase(summary, issue.statement.strip().rstrip("."))
        if quote is None or not quote.text.strip():
            continue  # not the summary's words: an invented statement
        sentence = next((s.text for s in sentences(summary) if quote.text in s.text), quote.text)
        source = issue.source if issue.source and issue.source in joined else None
        kind = issue.kind if issue.kind in KINDS else "unsupported"
        why = issue.why.strip() or "the source does not support this statement"
        flags.append(
            LintFlag(
                kind, f"judge: {why}", sentence, source,
                summary_quote=quote.text, source_quote=None, origin="judge", rule="judge",
            )
        )  # fmt: skip
    return flags


class Judge:
    """Asks one chat model, summary by summary."""

    def __init__(self, model: ChatModel, *, max_tokens: int = 400) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self.name = f"{JUDGE_VERSION}/{model.name}"

    def messages(self, summary: str, sources: list[str]) -> list[dict[str, str]]:
        """The request: the source (cut to the model's context) and the summary."""
        budget = max(500, (self.model.context_tokens - self.max_tokens - 300) * 3)
        source = "\n\n".join(sources)[:budget]
        user = f"Source:\n{source}\n\nSummary:\n{summary}"
        return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]

    async def ajudge(self, summary: str, sources: list[str]) -> list[LintFlag]:
        """The judge's flags of ``summary``.

        Raises:
            SummarizerError: The model could not be reached (after its backend's retries).
        """
        completion = await self.model.complete(
            self.messages(summary, sources), max_tokens=self.max_tokens
        )
        return parse_answer(completion.text, summary, sources)

    def judge_many(self, items: list[tuple[str, list[str]]]) -> list[list[LintFlag] | None]:
        """Judge several summaries in one event loop; None where the model failed."""

        async def run() -> list[list[LintFlag] | None]:
            out: list[list[LintFlag] | None] = []
            try:
                for summary, sources in items:
                    try:
                        out.append(await self.ajudge(summary, sources))
                    except SummarizerError:
                        out.append(None)
            finally:
                await self.model.close()
            return out

        return asyncio.run(run())


def make_judge(settings: Settings) -> Judge | None:
    """The judge the settings ask for (``lint_judge``), on the ``openai`` backend's server.

    Raises:
        ConfigError: ``lint_judge`` is on but no server or model is configured.
    """
    if not settings.lint_judge:
        return None
    from indexer.errors import ConfigError
    from indexer.summarizers.openai_chat import OpenAIChatModel

    model_name = settings.lint_judge_model or settings.summarizer_model
    if not settings.summarizer_base_url or not model_name:
        raise ConfigError(
            "the lint judge needs a server and a model: set OVERSTORY_SUMMARIZER_BASE_URL and "
            "OVERSTORY_LINT_JUDGE_MODEL (or OVERSTORY_SUMMARIZER_MODEL)"
        )
    key = settings.summarizer_api_key
    model: Any = OpenAIChatModel(
        base_url=settings.summarizer_base_url,
        model=model_name,
        api_key=key.get_secret_value() if key is not None else None,
        timeout=settings.summarizer_timeout,
        retries=settings.summarizer_retries,
        backoff=settings.summarizer_backoff,
        backoff_max=settings.summarizer_backoff_max,
        context_tokens=settings.summarizer_context_tokens,
        json_output=True,
    )
    return Judge(model)
