"""The ``openai`` backend: any OpenAI-compatible chat-completions server (Ollama, vLLM, llama.cpp's
server, hosted APIs), through the maintained ``openai`` client.

Retries are tenacity's: exponential backoff with full jitter (``wait_random_exponential``), never
shorter than the server's ``Retry-After``, on 429, 408/409, 5xx, timeouts and connection errors;
other 4xx fail at once. A circuit breaker stops calling a server that keeps failing: after
``circuit_threshold`` requests in a row failed for good, the next ones fail at once for
``circuit_cooldown`` seconds instead of each waiting through its own retries, so a build against a
dead server ends quickly with every failure reported.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

import openai
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    RetryError,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)

from indexer.errors import ConfigError, SummarizerError
from indexer.summarizers.chat import ChatSummarizer
from indexer.summarizers.chat_model import Completion
from indexer.summarizers.estimate import estimate_tokens
from indexer.summarizers.prompts import Message, words_for

if TYPE_CHECKING:
    from indexer.settings import Settings

_RETRY_STATUS = {408, 409, 429}


class OpenAIChatModel:
    """One model on an OpenAI-compatible server."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 120.0,
        retries: int = 4,
        backoff: float = 1.0,
        backoff_max: float = 30.0,
        context_tokens: int = 4096,
        circuit_threshold: int = 8,
        circuit_cooldown: float = 30.0,
        json_output: bool = False,
    ) -> None:
        self.name = model
        self.json_output = json_output  # ask the server for one JSON object (the lint judge)
        self.base_url = base_url
        self.context_tokens = context_tokens
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.backoff_max = backoff_max
        self.circuit_threshold = circuit_threshold
        self.circuit_cooldown = circuit_cooldown
        # Local servers ignore the key, but the client refuses to start without one.
        self._api_key = api_key or "not-needed"
        self._client: Any = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self._failures_in_a_row = 0
        self._open_until = 0.0
        self.calls = 0  # HTTP requests sent, retries included (benchmarks, tests)

    async def prepare(self) -> None:
        """A client for the running event loop (its connection pool belongs to one loop, and
        the ingest runs each batch in a fresh loop)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            # The old client is dropped, not closed: its sockets died with its finished loop.
            # The client's own retries are off: tenacity retries, with the settings' backoff
            # (the client's delays are fixed constants) and one `calls` per HTTP request.
            self._client = openai.AsyncOpenAI(
                base_url=self.base_url,
                api_key=self._api_key,
                timeout=self.timeout,
                max_retries=0,
            )
            self._client_loop = loop

    async def close(self) -> None:
        """Close the connections of the running loop's client."""
        client, self._client, self._client_loop = self._client, None, None
        if client is not None:
            await client.close()

    def count_tokens(self, text: str) -> int:
        """An estimate: the server's tokenizer is not available here."""
        return estimate_tokens(text)

    async def complete(self, messages: list[Message], *, max_tokens: int) -> Completion:
        """One chat completion, retried on transient errors.

        Raises:
            SummarizerError: The server failed for good, refused the request, or the circuit
                breaker is open.
        """
        await self.prepare()
        # The breaker stays our own: tenacity has none, and the breaker libraries would be a
        # second dependency (with half-open states and exceptions to map) for these few lines.
        if time.monotonic() < self._open_until:
            raise SummarizerError(
                f"{self._where()}: not attempted, the server failed {self._failures_in_a_row} "
                f"requests in a row; retrying after a {self.circuit_cooldown:g} s pause"
            )
        try:
            response: Any = await self._retrying()(self._request, messages, max_tokens)
        except openai.APIStatusError as exc:  # not transient: tenacity raised it at once
            raise SummarizerError(
                f"{self._where()}: HTTP {exc.status_code}: {_message(exc)}"
            ) from exc
        except RetryError as exc:
            self._failures_in_a_row += 1
            if self._failures_in_a_row >= self.circuit_threshold:
                self._open_until = time.monotonic() + self.circuit_cooldown
            last = exc.last_attempt
            cause = last.exception()
            raise SummarizerError(
                f"{self._where()}: {_describe(cause, self.timeout)} "
                f"after {last.attempt_number} attempt(s)"
            ) from cause
        self._failures_in_a_row = 0
        return self._completion(response, messages)

    def _retrying(self) -> AsyncRetrying:
        # One per call: a tenacity controller keeps per-run state, and calls run concurrently.
        return AsyncRetrying(
            stop=stop_after_attempt(self.retries + 1),
            wait=RetryAfterOrJitter(backoff=self.backoff, backoff_max=self.backoff_max),
            retry=retry_if_exception(is_transient),
        )

    async def _request(self, messages: list[Message], max_tokens: int) -> Any:
        self.calls += 1
        extra: dict[str, Any] = (
            {"response_format": {"type": "json_object"}} if self.json_output else {}
        )
        return await self._client.chat.completions.create(
            model=self.name,
            messages=messages,  # type: ignore[arg-type]
            max_tokens=max_tokens,
            temperature=0.0,
            **extra,
        )

    def _completion(self, response: Any, messages: list[Message]) -> Completion:
        if not response.choices:
            raise SummarizerError(f"{self._where()}: the response has no choices")
        choice = response.choices[0]
        text = choice.message.content if choice.message is not None else None
        if not text:
            raise SummarizerError(f"{self._where()}: the response has no content")
        usage = response.usage
        if usage is not None:
            n_in, n_out = int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0)
        else:
            n_in = sum(estimate_tokens(m["content"]) for m in messages)
            n_out = estimate_tokens(text)
        return Completion(text, n_in, n_out, choice.finish_reason)

    def _where(self) -> str:
        return f"openai backend ({self.name} at {self.base_url})"


def is_transient(exc: BaseException) -> bool:
    """Whether a failed request is worth retrying: 429, 408/409, 5xx, a timeout, no connection."""
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _RETRY_STATUS or exc.status_code >= 500
    return isinstance(exc, openai.APIConnectionError)  # includes APITimeoutError


class RetryAfterOrJitter:
    """A tenacity wait: full jitter, uniform in [0, min(backoff_max, backoff * 2**(n - 1))]
    before retry n, but never shorter than the server's ``Retry-After`` (capped at backoff_max).
    """

    def __init__(self, *, backoff: float, backoff_max: float) -> None:
        self.backoff_max = backoff_max
        self._jitter = wait_random_exponential(multiplier=backoff, max=backoff_max)

    def __call__(self, retry_state: RetryCallState) -> float:
        """Seconds to sleep before the next attempt."""
        delay = self._jitter(retry_state)
        outcome = retry_state.outcome
        retry_after = _retry_after(outcome.exception() if outcome is not None else None)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.backoff_max))
        return delay


def _retry_after(exc: BaseException | None) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
    return str(getattr(exc, "message", exc))


def _describe(exc: BaseException | None, timeout: float) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return f"timed out (no answer within {timeout:g} s)"
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc
        return f"connection failed ({cause})"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code} ({_message(exc)})"
    return str(exc)


def make_openai_summarizer(settings: Settings) -> ChatSummarizer:
    """The ``openai`` backend configured from ``settings``.

    Raises:
        ConfigError: ``summarizer_base_url`` or ``summarizer_model`` is not set.
    """
    if not settings.summarizer_base_url or not settings.summarizer_model:
        raise ConfigError(
            "the openai summarizer needs a server and a model: set OVERSTORY_SUMMARIZER_BASE_URL "
            "(e.g. http://127.0.0.1:11434/v1) and OVERSTORY_SUMMARIZER_MODEL"
        )
    key = settings.summarizer_api_key
    model = OpenAIChatModel(
        base_url=settings.summarizer_base_url,
        model=settings.summarizer_model,
        api_key=key.get_secret_value() if key is not None else None,
        timeout=settings.summarizer_timeout,
        retries=settings.summarizer_retries,
        backoff=settings.summarizer_backoff,
        backoff_max=settings.summarizer_backoff_max,
        context_tokens=settings.summarizer_context_tokens,
    )
    return ChatSummarizer(
        model,
        backend="openai",
        words=words_for(settings.summary_tokens),
        max_new_tokens=settings.summarizer_max_new_tokens,
        concurrency=settings.summarizer_concurrency,
    )
