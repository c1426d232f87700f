"""The game clock: keeps :class:`ClockState` in NATS KV and emits every boundary (R2–R5) it passes, in order,
through the outbox. Manual mode moves only on ``clock.set``; real and accelerated modes tick."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import structlog
from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncEngine

from turf_clock import tables as t
from turf_common.contracts import subjects
from turf_common.contracts.base import Message, Refusal
from turf_common.contracts.clock import (
    ClockBoundaryEvent,
    ClockSet,
    ClockState,
    DayClosed,
    DayStarted,
    SeasonEnded,
    SeasonStarted,
    SetClock,
    WeekStarted,
)
from turf_common.outbox import OutboxRelay, stage
from turf_common.rules import gametime

log = structlog.get_logger(__name__)

EVENTS: dict[str, tuple[str, type[ClockBoundaryEvent]]] = {
    "season_started": (subjects.CLOCK_SEASON_STARTED, SeasonStarted),
    "week_started": (subjects.CLOCK_WEEK_STARTED, WeekStarted),
    "day_started": (subjects.CLOCK_DAY_STARTED, DayStarted),
    "day_closed": (subjects.CLOCK_DAY_CLOSED, DayClosed),
    "season_ended": (subjects.CLOCK_SEASON_ENDED, SeasonEnded),
}


def boundary_event(cfg: gametime.SeasonConfig, b: gametime.ClockBoundary) -> tuple[str, ClockBoundaryEvent]:
    subject, model = EVENTS[b.kind]
    ev = model(event_id=f"{cfg.season_id}:{b.kind}:{b.game_day.isoformat()}", occurred_at=b.at, at=b.at,
               game_day=b.game_day, game_day_number=b.game_day_number, week=b.week, season_id=cfg.season_id)
    return subject, ev


@dataclass
class ClockService:
    engine: AsyncEngine
    relay: OutboxRelay
    kv: Any
    season: gametime.SeasonConfig
    state: ClockState
    _lock: asyncio.Lock = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        self._lock = asyncio.Lock()

    def now(self) -> datetime:
        return self.state.now(datetime.now(UTC))

    async def save_state(self) -> None:
        await self.kv.put("state", self.state.model_dump_json().encode())

    async def emit_upto(self, upto: datetime) -> list[str]:
        """Emit every boundary in (cursor, upto] in one transaction, move the cursor, publish."""
        async with self._lock:
            async with self.engine.begin() as conn:
                row = (await conn.execute(select(t.cursor.c.emitted_upto).where(t.cursor.c.id == 1)
                                          .with_for_update())).scalar_one_or_none()
                after = row if row is not None else gametime.season_opens_at(self.season).replace(year=1970)
                if upto <= after:
                    return []
                names = []
                for b in gametime.boundaries_between(self.season, after, upto):
                    subject, ev = boundary_event(self.season, b)
                    await stage(conn, t.outbox, subject, ev)
                    names.append(f"{b.kind}:{b.game_day.isoformat()}")
                await conn.execute(pg_insert(t.cursor).values(id=1, emitted_upto=upto)
                                   .on_conflict_do_update(index_elements=["id"], set_={"emitted_upto": upto}))
            await self.relay.flush()
            if names:
                log.info("clock_boundaries", events=names)
            return names

    async def set(self, cmd: SetClock) -> Message:
        """Manual mode only: move forward to ``cmd.now`` (``clock_backwards`` otherwise) and emit what it passes.
        Replies after the events are committed and published."""
        if self.state.mode != "manual":
            return Refusal(reason="conflict", message="The clock is not in manual mode.")
        if cmd.now < self.state.game_anchor:
            return Refusal(reason="clock_backwards", message="The game clock only moves forward.")
        self.state = self.state.model_copy(update={"game_anchor": cmd.now, "revision": self.state.revision + 1})
        await self.save_state()
        names = await self.emit_upto(cmd.now)
        return ClockSet(now=cmd.now, events=names)

    async def tick_forever(self) -> None:
        """Real and accelerated modes: wake at each boundary (or every second) and emit."""
        while True:
            now = self.now()
            await self.emit_upto(now)
            nb = gametime.next_boundary(self.season, now)
            wait = 1.0
            if nb is not None and self.state.factor > 0:
                wait = min(wait, max((nb.at - now).total_seconds() / self.state.factor, 0.001))
            await asyncio.sleep(wait)
