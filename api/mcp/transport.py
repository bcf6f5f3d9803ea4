"""The MCP server's two transports: stdio (a local client starts it) and streamable HTTP.

Over HTTP the endpoint is ``/v1/mcp`` behind the REST service's own middleware
(:class:`api.middleware.ServiceMiddleware`): the same API keys in ``Authorization: Bearer``, the
same 401 body, the same host and origin checks with auth off, the same body limit and metrics.
Each tool then checks the key's role (:mod:`api.mcp.server`). ``GET /healthz`` tells a
supervisor the server is up.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp

from api.metrics import Metrics
from api.middleware import ServiceMiddleware
from api.origin import LOOPBACK_HOSTS
from api.service.keys import KeyStore
from api.service.wiring import Stack
from indexer.errors import ConfigError
from indexer.settings import Settings

MCP_PATH = "/v1/mcp"


def check_exposure(settings: Settings) -> None:
    """ConfigError for auth ``off`` on a host that is not loopback (as ``overstory serve``)."""
    if settings.auth == "off" and settings.host not in LOOPBACK_HOSTS:
        raise ConfigError(
            f"auth 'off' is for local development only; refusing to serve {settings.host} "
            "without API keys (use a loopback host or auth 'keys')"
        )


def http_app(server: MCPServer, settings: Settings, stack: Stack) -> ASGIApp:
    """The streamable HTTP app at :data:`MCP_PATH`, authenticated like the REST API.

    Raises:
        ConfigError: auth ``off`` with a host that is not loopback.
    """
    check_exposure(settings)

    @server.custom_route("/healthz", methods=["GET"])
    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,  # no session state: any replica answers any call
        json_response=True,
        host=settings.host,
    )
    return ServiceMiddleware(
        app,
        metrics=Metrics(),
        keys=KeyStore(stack.index.catalog),
        auth=settings.auth,
        upload_limit=settings.max_document_bytes,
        allowed_hosts=tuple(settings.allowed_hosts),
    )


def run_http(server: MCPServer, settings: Settings, stack: Stack, **uvicorn_options: Any) -> None:
    """Serve :func:`http_app` with uvicorn on the settings' host and port."""
    import uvicorn

    app = http_app(server, settings, stack)
    uvicorn.run(app, host=settings.host, port=settings.port, **uvicorn_options)


def run_stdio(server: MCPServer) -> None:
    """Serve over stdin/stdout until the client closes them."""
    anyio.run(server.run_stdio_async)
