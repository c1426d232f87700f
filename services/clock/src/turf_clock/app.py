"""Clock process: ``python -m turf_clock``."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

from turf_clock import tables
from turf_clock.handlers import ClockService
from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.clock import ClockState, SetClock
from turf_common.db import make_engine, run_migrations
from turf_common.legacy_bus import Bus
from turf_common.outbox import OutboxRelay
from turf_common.rules import gametime
from turf_common.service import run
from turf_common.settings import Settings, get_settings, parse_clock_mode

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


async def initial_state(settings: Settings, kv: object, season: gametime.SeasonConfig) -> ClockState:
    """Keep the stored state across restarts when the mode is unchanged (a manual clock stays where the
    organizer left it); otherwise start from the settings."""
    mode, factor = parse_clock_mode(settings.clock)
    try:
        stored = ClockState.model_validate_json((await kv.get("state")).value)  # type: ignore[attr-defined]
        if stored.mode == mode and stored.factor == factor:
            return stored
    except Exception:
        pass
    real_now = datetime.now(UTC)
    if mode == "real":
        start = real_now
    else:
        start = settings.clock_start or gametime.default_clock_start(season)
    return ClockState(mode=mode, factor=factor, game_anchor=start, real_anchor=real_now)  # type: ignore[arg-type]


def main() -> None:
    settings = get_settings()

    async def start(bus: Bus) -> Callable[[], Awaitable[None]]:
        assert settings.database_url, "TURF_DATABASE_URL is not set"
        run_migrations(settings.database_url, MIGRATIONS, tables.SCHEMA)
        engine = make_engine(settings.database_url, pool_size=2)
        season = gametime.load_season(settings.season_file)
        kv = await bus.clock_kv()
        svc = ClockService(engine=engine, relay=OutboxRelay(engine, tables.outbox, bus), kv=kv, season=season,
                           state=await initial_state(settings, kv, season))
        await svc.save_state()
        await svc.relay.flush()  # anything a crash left behind
        await svc.emit_upto(svc.now())

        async def on_set(data: bytes) -> Message:
            return await svc.set(SetClock.model_validate_json(data))

        await bus.serve(subjects.CLOCK_SET, "clock", on_set)
        tasks = [asyncio.create_task(svc.relay.run())]
        if svc.state.mode != "manual":
            tasks.append(asyncio.create_task(svc.tick_forever()))

        async def cleanup() -> None:
            for task in tasks:
                task.cancel()
            await engine.dispose()

        return cleanup

    run("clock", settings, start)
