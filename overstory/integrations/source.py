"""Where a retriever's results come from: the HTTP API, or an index open in this process.

Both answer :meth:`QuerySource.query` with the JSON of ``POST /v1/query`` and
:meth:`QuerySource.context` with the budgeted context of ``POST /v1/context``; an error comes back
as the library's own :class:`~indexer.errors.OverstoryError` subclass (over HTTP, the one
named by the canonical error body's ``code``), with its message.

Each has an awaitable twin (``aquery``, ``acontext``) that leaves the event loop free while it
waits: the HTTP source sends through an ``httpx.AsyncClient``, the local source runs the
retriever in a worker thread (``asyncio.to_thread``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from indexer.errors import OverstoryError, UnavailableError
from indexer.settings import Settings, load_settings

if TYPE_CHECKING:
    from api.routes.context import ContextResponse


@dataclass(frozen=True)
class ContextOptions:
    """What a context request asks for besides the question (see ``POST /v1/context``)."""

    budget: int = 1000
    tokenizer: str = "minilm"
    documents: tuple[str, ...] | None = None
    intent: str = "auto"

    def body(self, query: str) -> dict[str, object]:
        """The request body with ``query``."""
        out: dict[str, object] = {"query": query, "budget": self.budget}
        out.update(tokenizer=self.tokenizer, intent=self.intent)
        if self.documents is not None:
            out["documents"] = list(self.documents)
        return out


class QuerySource(Protocol):
    """Something that answers a query with the JSON of ``POST /v1/query``."""

    def query(
        self,
        query: str,
        *,
        k: int | None = None,
        kinds: Sequence[str] | None = None,
        documents: Sequence[str] | None = None,
        expand: bool = False,
    ) -> dict[str, Any]:
        """The results of one query, best first."""
        ...

    def context(self, query: str, options: ContextOptions) -> ContextResponse:
        """The budgeted context of one question."""
        ...

    async def aquery(
        self,
        query: str,
        *,
        k: int | None = None,
        kinds: Sequence[str] | None = None,
        documents: Sequence[str] | None = None,
        expand: bool = False,
    ) -> dict[str, Any]:
        """:meth:`query` without blocking the event loop."""
        ...

    async def acontext(self, query: str, options: ContextOptions) -> ContextResponse:
        """:meth:`context` without blocking the event loop."""
        ...


def _body(
    query: str,
    k: int | None,
    kinds: Sequence[str] | None,
    documents: Sequence[str] | None,
    expand: bool,
) -> dict[str, Any]:
    body: dict[str, Any] = {"query": query, "expand": expand}
    if k is not None:
        body["k"] = k
    if kinds is not None:
        body["kinds"] = list(kinds)
    if documents is not None:
        body["documents"] = list(documents)
    return body


class HttpSource:
    """The Overstory HTTP API at ``base_url`` with an API key (role reader or above).

    ``client`` and ``async_client`` replace the clients it would make (e.g. with a transport of
    one's own); the asynchronous one is made on first use, one per event loop.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        client: httpx.Client | None = None,
        async_client: httpx.AsyncClient | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.base_url = base_url
        self.timeout = timeout
        self.client = client or httpx.Client(base_url=base_url, timeout=timeout)
        self.headers = headers
        self._given_async = async_client
        self._async: dict[asyncio.AbstractEventLoop, httpx.AsyncClient] = {}

    def query(
        self,
        query: str,
        *,
        k: int | None = None,
        kinds: Sequence[str] | None = None,
        documents: Sequence[str] | None = None,
        expand: bool = False,
    ) -> dict[str, Any]:
        """``POST /v1/query``.

        Raises:
            OverstoryError: The service's error, by its code (401 AuthError, 422
                InvalidRequestError, …); UnavailableError when it cannot be reached.
        """
        body = _body(query, k, kinds, documents, expand)
        try:
            response = self.client.post("/v1/query", json=body, headers=self.headers)
        except httpx.HTTPError as exc:
            raise _unreachable(exc) from exc
        return _query_result(response)

    async def aquery(
        self,
        query: str,
        *,
        k: int | None = None,
        kinds: Sequence[str] | None = None,
        documents: Sequence[str] | None = None,
        expand: bool = False,
    ) -> dict[str, Any]:
        """``POST /v1/query`` through the asynchronous client (errors as :meth:`query`)."""
        body = _body(query, k, kinds, documents, expand)
        try:
            response = await self._async_client().post("/v1/query", json=body, headers=self.headers)
        except httpx.HTTPError as exc:
            raise _unreachable(exc) from exc
        return _query_result(response)

    def context(self, query: str, options: ContextOptions) -> ContextResponse:
        """``POST /v1/context``.

        Raises:
            OverstoryError: The service's error, by its code; UnavailableError when it cannot
                be reached.
        """
        try:
            response = self.client.post(
                "/v1/context", json=options.body(query), headers=self.headers
            )
        except httpx.HTTPError as exc:
            raise _unreachable(exc) from exc
        return _context_result(response)

    async def acontext(self, query: str, options: ContextOptions) -> ContextResponse:
        """``POST /v1/context`` through the asynchronous client (errors as :meth:`context`)."""
        try:
            response = await self._async_client().post(
                "/v1/context", json=options.body(query), headers=self.headers
            )
        except httpx.HTTPError as exc:
            raise _unreachable(exc) from exc
        return _context_result(response)

    def _async_client(self) -> httpx.AsyncClient:
        if self._given_async is not None:
            return self._given_async
        # an AsyncClient's connections belong to the loop that opened them
        loop = asyncio.get_running_loop()
        if loop not in self._async:
            self._async = {k: v for k, v in self._async.items() if not k.is_closed()}
            self._async[loop] = httpx.AsyncClient(base_url=self.base_url, timeout=self.timeout)
        return self._async[loop]

    def close(self) -> None:
        """Close the HTTP client."""
        self.client.close()

    async def aclose(self) -> None:
        """Close the asynchronous client of the running loop (:meth:`close` closes the other)."""
        mine = self._async.pop(asyncio.get_running_loop(), None)
        if mine is not None:
            await mine.aclose()


def _unreachable(exc: httpx.HTTPError) -> UnavailableError:
    return UnavailableError(f"cannot reach the Overstory service: {exc}")


def _query_result(response: httpx.Response) -> dict[str, Any]:
    if response.status_code != 200:
        raise _error(response)
    result: dict[str, Any] = response.json()
    return result


def _context_result(response: httpx.Response) -> ContextResponse:
    from api.routes.context import ContextResponse

    if response.status_code != 200:
        raise _error(response)
    return ContextResponse.model_validate(response.json())


def _error_classes(cls: type[OverstoryError]) -> dict[str, type[OverstoryError]]:
    """Every error class by its ``code``, most general first (a code names one class)."""
    out: dict[str, type[OverstoryError]] = {str(cls.code): cls}
    for sub in cls.__subclasses__():
        out.update(_error_classes(sub))
    return out


def _error(response: httpx.Response) -> OverstoryError:
    try:
        error = response.json()["error"]
        cls = _error_classes(OverstoryError).get(error["code"], OverstoryError)
        return cls(error["message"], detail=error.get("detail"))
    except (ValueError, KeyError, TypeError):
        return OverstoryError(f"HTTP {response.status_code}: {response.text[:200]}")


class LocalSource:
    """An index open in this process (its retriever), e.g. ``LocalSource.open(".overstory")``."""

    def __init__(self, retriever: Any) -> None:
        self.retriever = retriever

    @classmethod
    def open(
        cls, store: Path | str | None = None, *, settings: Settings | None = None
    ) -> LocalSource:
        """The retriever of the store at ``store`` (or of ``settings``), opened read-mostly."""
        from api.service.wiring import open_stack

        settings = settings or load_settings(store=Path(store) if store is not None else None)
        return cls(open_stack(settings).retriever)

    def query(
        self,
        query: str,
        *,
        k: int | None = None,
        kinds: Sequence[str] | None = None,
        documents: Sequence[str] | None = None,
        expand: bool = False,
    ) -> dict[str, Any]:
        """The retriever's query (the same JSON as ``POST /v1/query``).

        Raises:
            InvalidRequestError: A bad query, k, kinds or documents.
            NotFoundError: A document in ``documents`` is not indexed.
        """
        body = _body(query, k, kinds, documents, expand)
        request = self.retriever.request(body.pop("query"), **body)
        result: dict[str, Any] = self.retriever.query(request).to_json()
        return result

    def context(self, query: str, options: ContextOptions) -> ContextResponse:
        """The retriever's budgeted context (the same as ``POST /v1/context``).

        Raises:
            InvalidRequestError: A bad query, budget, tokenizer or documents.
            NotFoundError: A document in ``documents`` is not indexed.
        """
        from api.routes.context import ContextResponse
        from indexer.validation import validated
        from retriever.context import ContextRequest, build_context

        model = ContextRequest.with_limits(self.retriever.limits)
        request = validated(model, options.body(query))
        return ContextResponse.of(build_context(self.retriever, request))

    async def aquery(
        self,
        query: str,
        *,
        k: int | None = None,
        kinds: Sequence[str] | None = None,
        documents: Sequence[str] | None = None,
        expand: bool = False,
    ) -> dict[str, Any]:
        """:meth:`query` in a worker thread, so the event loop runs on while it ranks."""
        return await asyncio.to_thread(
            self.query, query, k=k, kinds=kinds, documents=documents, expand=expand
        )

    async def acontext(self, query: str, options: ContextOptions) -> ContextResponse:
        """:meth:`context` in a worker thread."""
        return await asyncio.to_thread(self.context, query, options)
