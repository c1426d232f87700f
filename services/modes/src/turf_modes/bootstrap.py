"""The one place where the modes service's adapters are wired: PostgreSQL, the game clock in NATS KV, the board's
towns and fields, the outbox relay; the memory fakes of the same ports in tests (turf_modes.testing)."""

from __future__ import annotations

from pathlib import Path

from faststream.nats import NatsBroker

from turf_common.board import load_board
from turf_common.bus import EventPublisher, clock_kv
from turf_common.db import make_engine, run_migrations
from turf_common.gameclock import GameClockReader
from turf_common.outbox import OutboxRelay
from turf_common.service import Wire, Wired
from turf_common.settings import Settings
from turf_modes import entrypoints
from turf_modes.adapters import tables
from turf_modes.adapters.store import SqlModesStore
from turf_modes.games import BoardFields
from turf_modes.handlers import ModesHandlers

MIGRATIONS = Path(__file__).resolve().parent / "migrations"   # shipped inside the package (a wheel has them)
TICK_S = 1.0   # seconds between looks at the game clock for due turns and rounds (T9, K5)


def wire(settings: Settings) -> Wire:
    """Start-up: migrate, connect, publish what a crash left in the outbox, then the subscribers; the outbox sweep
    and the timer run beside them."""
    async def build(broker: NatsBroker) -> Wired:
        assert settings.database_url, "TURF_DATABASE_URL is not set"
        run_migrations(settings.database_url, MIGRATIONS, tables.SCHEMA)
        engine = make_engine(settings.database_url)
        relay = OutboxRelay(engine, tables.outbox, EventPublisher(broker, settings.stream))
        board = load_board(settings.board_dir)
        fields = BoardFields(board.graph, {t: f"{v.county}, {v.state}" for t, v in board.territories.items()})
        h = ModesHandlers(store=SqlModesStore(engine), relay=relay, fields=fields,
                          clock=GameClockReader(lambda: clock_kv(broker, settings.stream, settings.stream_replicas)))
        await relay.flush()   # anything a crash left behind
        return Wired(router=entrypoints.router(h, settings.stream), loops=[relay.run, lambda: h.run_timers(TICK_S)],
                     close=engine.dispose)

    return build
