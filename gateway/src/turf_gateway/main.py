"""The gateway: ``create_app()``. Run with ``python -m turf_gateway`` (uvicorn on TURF_HTTP_PORT)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from turf_common.logs import configure
from turf_common.settings import Settings, get_settings
from turf_gateway import bootstrap, docs, errors, pages, readiness, security
from turf_gateway.api.routes import (
    adjacency,
    admin,
    cards,
    claims,
    corrections,
    exports,
    history,
    notifications,
    outlook,
    players,
    public,
    roster,
    season,
    spectators,
)
from turf_gateway.board_cache import WritesMoveTheBoard
from turf_gateway.compression import PublicGzip
from turf_gateway.http_metrics import HttpMetrics
from turf_gateway.tracing_mw import TraceRequests

MIGRATIONS = bootstrap.MIGRATIONS
STATIC = Path(__file__).parent / "static"


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.turf, stop = await bootstrap.start(settings)
        yield
        await stop()

    # FastAPI's native OpenTelemetry is off: TraceRequests already makes the request's span (continuing the
    # caller's traceparent, answering ours) and HttpMetrics counts requests by route; the native layer made a
    # second span per request and one per dependency, endpoint and serialization (issue 21: about a tenth of the
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
              history.router, adjacency.router, roster.router):
        api.include_router(r)
    app.include_router(api)

    @app.get("/metrics", include_in_schema=False)
    async def prometheus(request: Request) -> Response:
        """Prometheus metrics, for clients on this machine only (issue 15: the request counts, handler timings and
        queue depths tell an outsider when and how the game is played); 404 for anyone else."""
        if not security.loopback_client(request.client):
            raise errors.ApiError("not_found", "Not found.")
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    @app.get("/health", include_in_schema=False)
    async def health() -> JSONResponse:
        return JSONResponse({"ok": True})

    @app.get("/ready", include_in_schema=False)
    async def ready(request: Request) -> JSONResponse:
        """200 ``{ok: true, checks}`` when NATS, PostgreSQL and Redis answer; else 503 ``unavailable`` with the
        same checks (which server is down, never its address or credentials)."""
        checks = await readiness.readiness(request.app.state.turf)
        if all(c["ok"] for c in checks.values()):
            return JSONResponse({"ok": True, "checks": checks})
        down = ", ".join(name for name, c in checks.items() if not c["ok"])
        return JSONResponse({"reason": "unavailable", "message": f"This gateway cannot reach {down}.",
                             "checks": checks}, status_code=503)

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    pages.install(app, settings)   # the web pages: /watch, /admin, /static (issue #7)
    app.add_middleware(PublicGzip)  # type: ignore[arg-type]
    app.add_middleware(WritesMoveTheBoard)  # type: ignore[arg-type]
    app.add_middleware(errors.BodyLimit)  # type: ignore[arg-type]
    security.install(app, settings.cors_origins, settings.allowed_hosts)
    app.add_middleware(TraceRequests)  # type: ignore[arg-type]
    app.add_middleware(HttpMetrics)  # type: ignore[arg-type]   # outermost: every answer counted, 4xx and 5xx too
    return app


def main() -> None:
    import uvicorn

    settings = get_settings()
    # No permessage-deflate: feed messages are small deltas sent to every spectator, and compressing each copy per
    # client cost more CPU than the bytes it saved (issue #9, fan-out to 1,000 clients).
    # Issue 15: X-Forwarded-For is believed only from the proxies named in TURF_FORWARDED_ALLOW_IPS (none by
    # default: uvicorn's own default trusts 127.0.0.1, so any local process could pose as any client address and
    # slip the per-address limits)
    proxies = settings.forwarded_allow_ips.strip()
    # log_config=None: uvicorn's lines (its access log included) go through our JSON handler (turf_common.logs),
    # configured here already so that start-up lines are JSON too
    configure("gateway", settings.log_level)
    uvicorn.run(create_app(settings), host=settings.http_host, port=settings.http_port, log_config=None,
                log_level=settings.log_level.lower(), access_log=settings.access_log,
                ws_max_size=64 * 1024, ws_per_message_deflate=False, proxy_headers=bool(proxies),
                forwarded_allow_ips=proxies or None)
