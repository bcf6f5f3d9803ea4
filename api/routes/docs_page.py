"""The OpenAPI docs page (``GET /docs``) with Swagger UI served from this service.

Swagger UI 5 (which reads OpenAPI 3.1, the version FastAPI writes) is vendored under
``api/static/swagger-ui/`` (see its ``VERSION.md``) and mounted under ``/docs/static``: nothing is
fetched from a CDN, so the page works offline and no third-party script runs on a page where
admins paste keys.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

DOCS_URL = "/docs"
STATIC_URL = "/docs/static"
SWAGGER_UI_DIR = Path(__file__).resolve().parent.parent / "static" / "swagger-ui"


def add_docs_page(app: FastAPI, *, openapi_url: str) -> None:
    """Serve Swagger UI's assets and the docs page from ``app``."""
    app.mount(STATIC_URL, StaticFiles(directory=str(SWAGGER_UI_DIR)), name="swagger-ui")

    async def docs_page() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} API",
            swagger_js_url=f"{STATIC_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{STATIC_URL}/swagger-ui.css",
            swagger_favicon_url=f"{STATIC_URL}/favicon-32x32.png",
        )

    app.add_api_route(DOCS_URL, docs_page, methods=["GET"], include_in_schema=False)
