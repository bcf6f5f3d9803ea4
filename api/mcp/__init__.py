"""The MCP server: Overstory's search, outline, read_node, what_changed and select for agents.

Needs the ``mcp`` extra (``pip install 'overstory[mcp]'``); the ``overstory mcp`` command
imports this package only when it runs.
"""

from api.mcp.server import build_server
from api.mcp.transport import MCP_PATH, http_app, run_http, run_stdio

__all__ = ["MCP_PATH", "build_server", "http_app", "run_http", "run_stdio"]
