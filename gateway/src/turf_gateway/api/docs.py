"""``/docs``: Swagger UI for the HTTP API, served from this package and ``fastapi-offline``'s copy of
swagger-ui-dist (no CDN: our Content-Security-Policy allows scripts from ``'self'`` only, and a phone at a game
may have no route to a CDN). FastAPI's own page loads the bundle from jsdelivr and starts it with an inline
script, which the policy refuses: a blank page. Here the start script is a file (``static/js/swagger-init.js``)."""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

ASSETS = Path(fastapi_offline.__file__).parent / "static"

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} — API</title><link rel="icon" href="/static/icon.svg">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui" data-openapi="{openapi}"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/static/js/swagger-init.js"></script></body></html>
"""


def install(app: FastAPI) -> None:
    """``GET /docs`` (the page) and ``/docs/assets/*`` (Swagger UI's files). Call with ``docs_url=None``."""
    app.mount("/docs/assets", StaticFiles(directory=ASSETS), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return HTMLResponse(PAGE.format(title=app.title, openapi=app.openapi_url))
