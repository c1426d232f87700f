"""The gateway: ``create_app()``. Run with ``python -m turf_gateway`` (uvicorn on TURF_HTTP_PORT)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI

from turf_common.logs import configure
from turf_common.settings import Settings, get_settings
from turf_gateway import bootstrap, server
from turf_gateway.adapters.board_cache import WritesMoveTheBoard
from turf_gateway.api import docs, errors, pages
from turf_gateway.api.middleware import security
from turf_gateway.api.middleware.compression import PublicGzip
from turf_gateway.api.middleware.edge import Edge
from turf_gateway.api.middleware.no_store import PrivateNoStore
from turf_gateway.api.routes import (
    accounts,
    adjacency,
    admin,
    cards,
    claims,
    corrections,
    exports,
    history,
    modes,
    notifications,
    ops,
    outlook,
    players,
    profiles,
    public,
    roster,
    season,
    seasons,
    spectators,
    yard,
)

MIGRATIONS = bootstrap.MIGRATIONS


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.turf, stop = await bootstrap.start(settings)
        yield
        await stop()

    # FastAPI's native OpenTelemetry is off: Edge carries the request's trace context (continuing the caller's
    # traceparent, answering ours; a span only with an exporter) and counts requests by route; the native layer made
    # a second span per request and one per dependency, endpoint and serialization (about a tenth of the
    # gateway's CPU per claim)
    app = FastAPI(title="Turf War gateway", version="1", lifespan=lifespan, openapi_url="/openapi.json",
                  docs_url=None, redoc_url=None,   # /docs: docs.py, served from the package under our CSP
                  telemetry={"tracing": False, "metrics": False, "logs": False, "operation_spans": False})
    docs.install(app)
    errors.install(app)
    errors.install_fallbacks(app)
    api = APIRouter(prefix="/api/v1", responses=errors.ERROR_RESPONSES)
    for r in (players.router, claims.router, cards.router, public.router, admin.router, corrections.router,
              exports.router, season.router, spectators.router, notifications.router, outlook.router,
              history.router, adjacency.router, roster.router, modes.router, yard.router, accounts.router,
              profiles.router, seasons.router):
        api.include_router(r)
    app.include_router(api)
    app.include_router(ops.router)   # /metrics, /health, /ready, /
    pages.install(app, settings)   # the web pages: /watch, /admin, /static
    app.add_middleware(PublicGzip)   # pages and public data only: never an answer that carries a secret (BREACH)
    app.add_middleware(PrivateNoStore)   # private and organizer answers are never stored by a cache
    app.add_middleware(WritesMoveTheBoard)
    app.add_middleware(errors.BodyLimit)
    security.install(app, settings.cors_origins, settings.allowed_hosts, settings.tile_url,
                     script_hashes=pages.inline_script_hashes())
    # outermost: every answer counted and its trace id in every line, 4xx and 5xx too (edge.py)
    app.add_middleware(Edge, access_log=settings.access_log, sample=settings.access_log_sample)
    return app


def main() -> None:
    import uvicorn

    settings = get_settings()
    # No permessage-deflate: feed messages are small deltas sent to every spectator, and compressing each copy per
    # client cost more CPU than the bytes it saved (fan-out to 1,000 clients).
    # X-Forwarded-For is believed only from the proxies named in TURF_FORWARDED_ALLOW_IPS (none by
    # default: uvicorn's own default trusts 127.0.0.1, so any local process could pose as any client address and
    # slip the per-address limits)
    proxies = settings.forwarded_allow_ips.strip()
    # log_config=None: uvicorn's lines go through our JSON handler (turf_common.logs), configured here already so
    # that start-up lines are JSON too; its access log is off: Edge writes those lines, sampled
    configure("gateway", settings.log_level)
    uvicorn.run(create_app(settings), host=settings.http_host, port=settings.http_port, log_config=None,
                log_level=settings.log_level.lower(), access_log=False,
                ws_max_size=64 * 1024, ws_per_message_deflate=False, proxy_headers=bool(proxies),
                forwarded_allow_ips=proxies or None, **server.uvicorn_options(settings))
