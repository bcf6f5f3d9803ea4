"""The auditors' web page: ``GET /audit`` and its script and style, served without a key.

The page is static (plain HTML, CSS and JavaScript shipped in ``api/static``, no build step and
nothing fetched from elsewhere); it asks for an API key once and sends it with every ``/v1``
call. A strict Content-Security-Policy allows only this origin's own script, style and API.
"""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter
from fastapi.responses import Response

from indexer.errors import NotFoundError

router = APIRouter(include_in_schema=False)

_FILES = {
    "audit.html": "text/html; charset=utf-8",
    "audit.js": "text/javascript; charset=utf-8",
    "audit-source.js": "text/javascript; charset=utf-8",
    "audit-keys.js": "text/javascript; charset=utf-8",
    "audit.css": "text/css; charset=utf-8",
}
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self' data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def _static(name: str) -> Response:
    if name not in _FILES:
        raise NotFoundError(f"no file {name!r} on the audit page")
    data = resources.files("api").joinpath("static", name).read_bytes()
    return Response(data, media_type=_FILES[name], headers=_HEADERS)


@router.get("/audit")
async def audit_page() -> Response:
    """The audit page."""
    return _static("audit.html")


@router.get("/audit/{name}")
async def audit_asset(name: str) -> Response:
    """The page's script and style."""
    return _static(name)
