"""The MCP server: the tools of :mod:`api.mcp.tools` on the official ``mcp`` SDK's MCPServer.

Every tool declares its output schema and answers with its result as JSON text and as
structured content (the REST route's body; ``search`` compact unless ``detail``). A refused or
failed call is a tool error (``isError``) carrying the canonical error body
``{"error": {"code", "message", "detail"}}``, never a protocol error or a crash. One middleware
lists only the tools the caller's role may call and, before a tool runs, refuses arguments the
tool does not take (as the REST API refuses unknown fields) and checks the role: over HTTP the
API key's, authenticated by :mod:`api.mcp.transport`; over stdio the local user's, who could
open the store anyway (as the CLI).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel

from api.mcp import signatures
from api.mcp.tools import TOOL_ROLES, Tools
from api.service.keys import ApiKey, authorize
from api.service.wiring import Stack
from indexer.errors import InvalidRequestError, OverstoryError, error_body
from retriever.answers import Answer

PRINCIPAL = "principal"  # where api.middleware puts the authenticated key
LOCAL_PRINCIPAL = ApiKey(key_id="local", role="admin", name="local user (stdio)", created_at=0.0)
INSTRUCTIONS = """\
Overstory answers questions from long technical manuals. Every result says what it is: a
passage is a quote (label "quote", with its pages); a summary says which section and pages it
summarizes (label "summary of …"). Quote passages as quotes; say when something comes from a
summary. Tools: search (a question → labelled passages and summaries, compact; detail: true
adds scores, character ranges, covered passages and summary sentences with sources), context (a
question and a token budget → prompt-ready text with numbered citations), list_documents,
outline (a document's headings with one-line summaries and node ids), read_node (a node's
summary, children and passages), what_changed (revisions compared), select (representative
passages without a query)."""


def tool_result(answer: BaseModel) -> CallToolResult:
    """A tool's answer: its JSON (the REST body) as text, for any client, and as structured
    content, checked by the SDK against the tool's output schema."""
    if isinstance(answer, Answer):
        payload = answer.to_json()
    else:
        payload = answer.model_dump(mode="json", by_alias=True)
    return _result(payload, error=False)


def error_result(exc: OverstoryError) -> CallToolResult:
    """The canonical error body of ``exc`` as a tool error."""
    return _result(error_body(exc), error=True)


def _result(payload: dict[str, Any], *, error: bool) -> CallToolResult:
    text = json.dumps(payload, ensure_ascii=False, indent=1)
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=payload, is_error=error
    )


def principal_of(request: Any) -> ApiKey:
    """Who is calling: the API key the HTTP layer authenticated, or the local user (stdio)."""
    if request is None:
        return LOCAL_PRINCIPAL
    principal: ApiKey | None = request.scope.get("state", {}).get(PRINCIPAL)
    if principal is None:  # the HTTP layer authenticates every request before the SDK sees it
        raise RuntimeError("an HTTP request reached the MCP tools without authentication")
    return principal


def allowed(principal: ApiKey, tool: str) -> bool:
    """Whether the caller's role may call ``tool``."""
    try:
        authorize(principal, TOOL_ROLES[tool])
    except OverstoryError:
        return False
    return True


class ToolGate:
    """Server middleware run before every tool call (known arguments only, and the role) and
    on ``tools/list`` (a key sees only the tools its role may call)."""

    def __init__(self, known: dict[str, frozenset[str]]) -> None:
        self.known = known

    async def __call__(self, ctx: Any, call_next: Callable[[Any], Any]) -> Any:
        if ctx.method == "tools/list":
            return self._visible(await call_next(ctx), principal_of(ctx.request))
        if ctx.method != "tools/call":
            return await call_next(ctx)
        params = ctx.params if isinstance(ctx.params, Mapping) else {}
        name = params.get("name")
        if not isinstance(name, str) or name not in self.known:
            return await call_next(ctx)  # the SDK answers an unknown tool or malformed call
        arguments = params.get("arguments") or {}
        given = set(arguments) if isinstance(arguments, Mapping) else set()
        unknown = sorted(given - self.known[name])
        try:
            if unknown:
                raise InvalidRequestError(
                    f"{name} takes no argument{'s' if len(unknown) > 1 else ''} "
                    f"{', '.join(unknown)} (it takes: {', '.join(sorted(self.known[name]))})",
                    detail={"unknown": unknown},
                )
            authorize(principal_of(ctx.request), TOOL_ROLES[name])
        except OverstoryError as exc:
            return error_result(exc)
        return await call_next(ctx)

    @staticmethod
    def _visible(listed: Any, principal: ApiKey) -> Any:
        if not isinstance(listed, dict) or not isinstance(listed.get("tools"), list):
            return listed
        tools = [t for t in listed["tools"] if allowed(principal, str(t.get("name")))]
        return {**listed, "tools": tools}


def build_server(stack: Stack, *, version: str = "") -> MCPServer:
    """The MCP server of one open store, with every tool registered."""
    tools = Tools(stack)
    registered = signatures.functions(tools, on_error=error_result, on_result=tool_result)
    known = {name: signatures.argument_names(fn) for name, fn in registered.items()}
    server: MCPServer = MCPServer(
        "overstory",
        title="Overstory",
        instructions=INSTRUCTIONS,
        version=version,
        middleware=[ToolGate(known)],
    )
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
    for name, fn in registered.items():
        server.add_tool(fn, name=name, annotations=read_only, structured_output=True)
    return server
