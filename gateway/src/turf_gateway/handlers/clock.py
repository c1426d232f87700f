"""Moving a manual clock (the organizer's rehearsals) as a use case: the clock service moves and publishes the
boundaries it passes; the answer waits until every service has handled every event up to it (API.md)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

from turf_common.contracts import subjects
from turf_common.contracts.clock import ClockSet, SetClock
from turf_gateway.api import schemas as S
from turf_gateway.ports import GameClock, PlayerStore, Services


async def game_now_or_none(clock: GameClock) -> datetime | None:
    """The game instant, or None while the game clock cannot be read (NATS down: its KV read fails), for what must
    go on without it (a registration, a mailed link)."""
    try:
        return await clock.now()
    except Exception:   # whatever the clock's reader raises with NATS down
        return None


@dataclass
class ManualClock:
    services: Services
    players: PlayerStore
    #: returns once every durable consumer has handled every event in the stream
    idle: Callable[[], Awaitable[None]]

    async def move(self, by: str, now: datetime) -> S.ClockMoved:
        """Move forward to ``now``; ``{now, events}`` once every event is handled. The clock's refusals (not a
        manual clock, ``clock_backwards``) are ApiErrors."""
        out = await self.services.ask(subjects.CLOCK_SET, SetClock(now=now), ClockSet, 30)
        await self.idle()
        await self.players.log_action(by, "move_clock", None, None, {"now": now.isoformat(), "events": out.events})
        return S.ClockMoved(now=out.model_dump(mode="json")["now"], events=out.events)   # as the clock wrote it
