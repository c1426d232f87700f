"""The gateway: ``create_app()``. Run with ``python -m turf_gateway`` (uvicorn on TURF_HTTP_PORT)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from sqlalchemy import delete, insert, select, text, update

from turf_common import metrics, redisconn, tracing
from turf_common.board import load_board
from turf_common.bus import (
    EventPublisher,
    clock_kv,
    ensure_stream,
    jetstream,
    make_broker,
    quiet_faststream,
    retire_consumers,
)
from turf_common.db import make_engine, run_migrations
from turf_common.gameclock import GameClockReader
from turf_common.logs import configure
from turf_common.outbox import OutboxRelay
from turf_common.rules import gametime
from turf_common.settings import (
    Settings,
    get_settings,
    organizer_password_refusal,
    password_hash_refusal,
    seed_refusal,
)
from turf_gateway import docs, errors, feed, history_store, readiness, security, session_revocation, tables
from turf_gateway.adapters.services import NatsServices
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
from turf_gateway.correction_log import SqlCorrectionLog
from turf_gateway.geocoding import make_geocoder
from turf_gateway.handlers.claims import Claims
from turf_gateway.http_metrics import HttpMetrics
from turf_gateway.idempotency import RedisIdempotencyKeys
from turf_gateway.passwords import hash_password, use_profile, verify_password
from turf_gateway.ratelimit import RateLimiter, parse_limits
from turf_gateway.session_cache import SessionCache
from turf_gateway.state import AppState
from turf_gateway.tracing_mw import TraceRequests
from turf_gateway.ws import Hub

MIGRATIONS = Path(__file__).resolve().parent / "migrations"   # shipped inside the package (a wheel has them)
STATIC = Path(__file__).parent / "static"


async def ensure_organizer(state: AppState) -> None:
    """The organizer account exists at start (TURF_ORGANIZER_EMAIL / TURF_ORGANIZER_PASSWORD); on every start its
    password is set to the configured one. The configured password is the operator's choice: no player rules.
    Issue 15: when the configured password is not the stored one, every session of the organizer ends (a
    password changed because it leaked also shuts out whoever signed in with it)."""
    s = state.settings
    pw_hash = await hash_password(s.organizer_password)
    revoked = None
    async with state.engine.begin() as conn:
        # gateways start together (two replicas on a new database): one at a time, so the second finds the account
        # the first made instead of failing its start on the unique email
        await conn.execute(text("SELECT pg_advisory_xact_lock(724502)"))
        row = (await conn.execute(select(tables.players.c.id, tables.players.c.password_hash)
                                  .where(tables.players.c.email_norm == s.organizer_email.lower()))).first()
        if row is not None:
            if not await verify_password(row.password_hash, s.organizer_password):
                await conn.execute(delete(tables.sessions).where(tables.sessions.c.player_id == row.id))
                revoked = row.id
            await conn.execute(update(tables.players).where(tables.players.c.id == row.id).values(
                role="organizer", status="verified", password_hash=pw_hash))
        else:
            await conn.execute(insert(tables.players).values(
                id=uuid.uuid4().hex, name="Organizer", email=s.organizer_email, email_norm=s.organizer_email.lower(),
                discord="organizer", discord_norm="organizer", home_address="-", password_hash=pw_hash,
                status="verified", role="organizer", created_at=datetime.now(UTC)))
    if revoked is not None:   # issue 21: a replica not restarted yet forgets the organizer's sessions too
        await session_revocation.revoke(state, player_id=revoked)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # issue 15: the public seed (R12.1) and the well-known organizer password are for manual-clock rehearsals
        # only (the password on loopback only too): refused before anything is touched
        if why := (seed_refusal(settings.seed, settings.clock) or organizer_password_refusal(
                settings.organizer_password, settings.clock, settings.http_host) or password_hash_refusal(
                settings.password_hash, settings.clock, settings.http_host)):
            raise RuntimeError(why)
        use_profile(settings.password_hash)
        configure("gateway", settings.log_level)
        metrics.SERVICE["name"] = "gateway"
        tracing.setup("gateway")
        assert settings.nats_url and settings.database_url, "TURF_NATS_URL and TURF_DATABASE_URL must be set"
        run_migrations(settings.database_url, MIGRATIONS, tables.SCHEMA)
        quiet_faststream()
        # no per-message span or metrics: the gateway serves no command, and its feed relays every event
        broker = make_broker(settings.nats_url, "gateway", observe=False)
        await broker.connect()
        await ensure_stream(broker, settings.stream, settings.stream_replicas)
        # issue 21: a request holds a connection for its session lookup while the loop is busy with others, so under
        # load tens are out at once; beyond pool_size each one returned is closed and the next one reconnects (a
        # scram-sha-256 handshake on both sides: 0.175 connects per claim with 20, 0.023 with 40). No overflow: a
        # request beyond 40 waits for a connection, which costs less than making one (and bounds the total)
        engine = make_engine(settings.database_url, pool_size=40, max_overflow=0)
        redis = redisconn.connect(settings.redis_url) if settings.redis_url else None
        season = gametime.load_season(settings.season_file)
        services, board = NatsServices(broker), load_board(settings.board_dir)
        limiter = RateLimiter(redis, parse_limits(settings.rate_limits), settings.redis_prefix)
        state = AppState(settings=settings, broker=broker, engine=engine, board=board,
                         clock=GameClockReader(lambda: clock_kv(broker, settings.stream, settings.stream_replicas)),
                         season=season, hub=Hub(),
                         relay=OutboxRelay(engine, tables.outbox, EventPublisher(broker, settings.stream)),
                         geocoder=make_geocoder(settings.geocoder),
                         corrections=SqlCorrectionLog(engine, season.tz),
                         limiter=limiter,
                         sessions=SessionCache(settings.session_cache_s), services=services, claims=Claims(
                             services, board, limiter, RedisIdempotencyKeys(redis, settings.redis_prefix)))
        sweeper = asyncio.create_task(state.relay.run())
        app.state.turf = state
        await ensure_organizer(state)
        await players.purge_expired_sessions(state, datetime.now(UTC))   # and at sign-ins, once a minute at most
        # the feed starts right after the stream's last event, and so does the hub: a spectator's first snapshot
        # reflects that sequence, and every later event reaches it (issue 19)
        state.hub.last_seq = (await jetstream(broker).stream_info(settings.stream)).state.last_seq
        broker.include_router(feed.feed_router(state, settings.stream, after_seq=state.hub.last_seq))
        # the feed log's consumer, recreated (reading the stream from its start again) when the feed's subjects
        # changed; its rows are keyed by sequence, so what was stored stays once
        await retire_consumers(jetstream(broker), settings.stream, history_store.DURABLE, feed.feed_subjects())
        broker.include_router(history_store.history_router(state, settings.stream))
        broker.include_router(session_revocation.revocations_router(state))
        await broker.start()
        public.display_features(state)   # the board for the map, parsed now rather than on the first request
        state.board.locate(0.0, 0.0)      # and its point index (claims are located here, issue 21), built now
        # What is loaded now lives as long as the process (board, display GeoJSON, index): moved out of the
        # collector's sight, so full collections stop rescanning ~10^5 objects while spectators wait (issue #9)
        gc.collect()
        gc.freeze()
        yield
        # uvicorn has finished the requests in flight; the sweep ends, what they committed is published, then the
        # feed stops and the connection drains, and only then the pool closes
        sweeper.cancel()
        await asyncio.gather(sweeper, return_exceptions=True)
        with contextlib.suppress(Exception):
            await state.relay.flush()
        await broker.stop()
        if redis is not None:
            await redis.aclose()
        await engine.dispose()

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

    from turf_gateway import pages  # the web pages: /watch, /admin, /static (issue #7)

    pages.install(app)
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
