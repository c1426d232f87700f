"""The one place where the clock's adapters are wired: NATS KV and PostgreSQL in the app, fakes in unit tests."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from faststream.nats import NatsBroker

from turf_clock import entrypoints
from turf_clock.adapters import tables
from turf_clock.adapters.boundaries import SqlBoundaryLog
from turf_clock.adapters.kv import KvClockStore
from turf_clock.handlers import ClockHandlers, initial_state
from turf_clock.ports import BoundaryLog, ClockStore
from turf_common.bus import EventPublisher, clock_kv
from turf_common.bus.streams import watch_stream_fill
from turf_common.contracts.clock import ClockState
from turf_common.db import make_engine, run_migrations
from turf_common.outbox import OutboxFlush, OutboxRelay
from turf_common.rules import gametime
from turf_common.seasonbook import SeasonBook
from turf_common.service import Wire, Wired
from turf_common.settings import Settings, parse_clock_mode

MIGRATIONS = Path(__file__).resolve().parent / "migrations"   # shipped inside the package (a wheel has them)


def handlers(store: ClockStore, boundaries: BoundaryLog, relay: OutboxFlush, season: gametime.SeasonConfig | SeasonBook,
             state: ClockState, real_now: Callable[[], datetime] | None = None) -> ClockHandlers:
    """``season``: the book of seasons, or one season (unit tests)."""
    book = season if isinstance(season, SeasonBook) else SeasonBook.of(season)
    h = ClockHandlers(store=store, boundaries=boundaries, relay=relay, book=book, state=state)
    if real_now is not None:
        h.real_now = real_now
    return h


def wire(settings: Settings) -> Wire:
    """The app's start-up: migrate, load the stored state (kept when the mode is unchanged), publish it and every
    boundary passed meanwhile, then serve ``clock.set``; the outbox sweep runs beside it, and the tick loop unless
    the clock is manual."""
    async def build(broker: NatsBroker) -> Wired:
        assert settings.database_url, "TURF_DATABASE_URL is not set"
        run_migrations(settings.database_url, MIGRATIONS, tables.SCHEMA)
        engine = make_engine(settings.database_url, pool_size=2)
        season = gametime.load_season(settings.season_file)
        store = KvClockStore(await clock_kv(broker, settings.stream))
        relay = OutboxRelay(engine, tables.outbox, EventPublisher(broker, settings.stream))
        mode, factor = parse_clock_mode(settings.clock)
        state = initial_state(await store.load(), mode, factor, settings.clock_start, season, datetime.now(UTC))
        h = handlers(store, SqlBoundaryLog(engine), relay, season, state)
        await h.start()
        loops: list[Callable[[], Coroutine[Any, Any, None]]] = [
            relay.run, lambda: watch_stream_fill(broker, settings.stream)]
        if state.mode != "manual":
            loops.append(h.tick_forever)
        return Wired(router=entrypoints.router(h, settings.stream), loops=loops, close=engine.dispose)

    return build
