"""The one place where the claims service's real adapters are wired."""

from __future__ import annotations

from pathlib import Path

from turf_claims.adapters import tables
from turf_claims.handlers import ClaimsService
from turf_common.board import load_board
from turf_common.db import make_engine, run_migrations
from turf_common.gameclock import WatchedGameClock
from turf_common.legacy_bus import Bus
from turf_common.outbox import OutboxRelay
from turf_common.rules import gametime
from turf_common.settings import Settings

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


async def build(settings: Settings, bus: Bus) -> ClaimsService:
    assert settings.database_url, "TURF_DATABASE_URL is not set"
    run_migrations(settings.database_url, MIGRATIONS, tables.SCHEMA)
    # The pool keeps as many connections as claims may hold at once (30, as make_engine's 10 + 20 overflow): with
    # a smaller pool, every burst of concurrent claims opened and closed overflow connections, a PostgreSQL
    # connect each.
    engine = make_engine(settings.database_url, pool_size=30, max_overflow=0)
    clock = WatchedGameClock(bus.clock_kv)  # the game clock in memory, kept current from NATS KV (no request per claim)
    await clock.start()
    board = load_board(settings.board_dir)
    svc = ClaimsService(
        engine=engine, relay=OutboxRelay(engine, tables.outbox, bus), clock=clock,
        season=gametime.load_season(settings.season_file),
        names={tid: ter.name for tid, ter in board.territories.items()},
        max_travel_kmh=settings.max_travel_kmh,
        graph=board.graph,
    )
    await svc.seed_territories()
    return svc
