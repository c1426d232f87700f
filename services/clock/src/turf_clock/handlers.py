"""The game clock's use cases: keep :class:`ClockState` in its store and emit every boundary it passes (R1–R5,
R25: season start, week start, day start, day close, season end), in order, through the outbox.

Manual mode moves only on ``clock.set``, forward only; real and accelerated modes tick. Every emission is one
transaction (boundaries staged, cursor moved), then published, so each boundary is emitted exactly once whoever
emits it and whenever the process restarts."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import structlog

from turf_clock.ports import BoundaryLog, ClockStore
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.clock import (
    ClockBoundaryEvent,
    ClockSet,
    ClockState,
    DayClosed,
    DayStarted,
    SeasonEnded,
    SeasonsSet,
    SeasonStarted,
    SetClock,
    SetSeasons,
    WeekStarted,
)
from turf_common.outbox import OutboxFlush
from turf_common.rules import gametime
from turf_common.rules.gametime import SeasonConfig
from turf_common.seasonbook import SeasonBook

log = structlog.get_logger(__name__)

#: boundary kind -> (subject, event model)
EVENTS: dict[gametime.BoundaryKind, tuple[str, type[ClockBoundaryEvent]]] = {
    "season_started": (subjects.CLOCK_SEASON_STARTED, SeasonStarted),
    "week_started": (subjects.CLOCK_WEEK_STARTED, WeekStarted),
    "day_started": (subjects.CLOCK_DAY_STARTED, DayStarted),
    "day_closed": (subjects.CLOCK_DAY_CLOSED, DayClosed),
    "season_ended": (subjects.CLOCK_SEASON_ENDED, SeasonEnded),
}


def boundary_event(cfg: gametime.SeasonConfig, b: gametime.ClockBoundary) -> tuple[str, ClockBoundaryEvent]:
    """The subject and event of one boundary. The event id ``<season>:<kind>:<game day>`` is the same whoever
    emits it, so the stream's duplicate window drops a second publication."""
    subject, model = EVENTS[b.kind]
    ev = model(event_id=f"{cfg.season_id}:{b.kind}:{b.game_day.isoformat()}", occurred_at=b.at, at=b.at,
               game_day=b.game_day, game_day_number=b.game_day_number, week=b.week, season_id=cfg.season_id)
    return subject, ev


def initial_state(stored: ClockState | None, mode: str, factor: float, clock_start: datetime | None,
                  season: gametime.SeasonConfig, real_now: datetime) -> ClockState:
    """The state at start-up. The stored state wins when its mode and factor are the configured ones (a manual
    clock stays where the organizer left it, an accelerated one keeps its anchors); otherwise a new state from the
    settings: real mode at ``real_now``, the others at ``clock_start`` or the season's default start."""
    if stored is not None and stored.mode == mode and stored.factor == factor:
        return stored
    start = real_now if mode == "real" else clock_start or gametime.default_clock_start(season)
    return ClockState(mode=mode, factor=factor, game_anchor=start, real_anchor=real_now)  # type: ignore[arg-type]


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class ClockHandlers:
    """The clock of one process. ``real_now`` is the wall clock (replaceable in tests); ``state`` is the clock's
    current state, also kept in ``store`` for every other process; ``book`` every season (R31), whose boundaries it
    emits in time order."""

    store: ClockStore
    boundaries: BoundaryLog
    relay: OutboxFlush
    book: SeasonBook
    state: ClockState
    real_now: Callable[[], datetime] = _utc_now
    # one emission at a time in this process (start-up, the tick loop, clock.set)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, init=False, repr=False)

    def now(self) -> datetime:
        """The current game instant."""
        return self.state.now(self.real_now())

    async def save_state(self) -> None:
        await self.store.save(self.state)

    async def start(self) -> None:
        """Start-up: publish the state, publish what a crash left unpublished, emit every boundary passed since."""
        self.book.apply(await self.store.load_seasons())
        await self.save_state()
        await self.relay.flush()
        await self.emit_upto(self.now())

    async def emit_upto(self, upto: datetime) -> list[str]:
        """Emit every boundary in (cursor, ``upto``] in one transaction that also moves the cursor, then publish.
        Returns the boundaries emitted as ``<kind>:<game day>`` (empty when ``upto`` is not past the cursor; before
        the first emission the cursor is 1970, so the season's first boundaries are all included)."""
        async with self._lock:
            async with self.boundaries.transaction() as tx:
                after = await tx.emitted_upto()
                if after is None:
                    after = gametime.season_opens_at(self.book.configs[0]).replace(year=1970)
                if upto <= after:
                    return []
                names = []
                for cfg, b in self._boundaries(after, upto):
                    subject, ev = boundary_event(cfg, b)
                    await tx.stage(subject, ev)
                    names.append(f"{b.kind}:{b.game_day.isoformat()}")
                await tx.advance(upto)
            await self.relay.flush()
            if names:
                log.info("clock_boundaries", events=names)
            return names

    def _boundaries(self, after: datetime, upto: datetime) -> list[tuple[SeasonConfig, gametime.ClockBoundary]]:
        """Every season's boundaries in (``after``, ``upto``], in time order (R31: two seasons never overlap, so a
        season's own order at one instant, R5, is kept)."""
        out = [(cfg, b) for cfg in self.book.configs for b in gametime.boundaries_between(cfg, after, upto)]
        return sorted(out, key=lambda cb: cb[1].at)

    async def set_seasons(self, cmd: SetSeasons) -> SeasonsSet:
        """``clock.seasons`` (R31): store the catalog for every process's book, then emit what it makes due (nothing,
        unless a season opened at the clock's instant). Idempotent: the gateway sends it after every change."""
        await self.store.save_seasons(cmd)
        self.book.apply(cmd.model_dump_json())
        names = await self.emit_upto(self.now())
        return SeasonsSet(seasons=[c.season_id for c in self.book.configs], events=names)

    async def set(self, cmd: SetClock) -> ClockSet | Refusal:
        """``clock.set``, manual mode only (``conflict`` otherwise): move forward to ``cmd.now``
        (``clock_backwards`` if earlier than the clock; the same instant again is accepted and emits nothing),
        store the state, and emit what the move passes. Replies once those events are committed and published."""
        if self.state.mode != "manual":
            return Refusal(reason="conflict", message="The clock is not in manual mode.")
        if cmd.now < self.state.game_anchor:
            return Refusal(reason="clock_backwards", message="The game clock only moves forward.")
        self.state = self.state.model_copy(update={"game_anchor": cmd.now, "revision": self.state.revision + 1})
        await self.save_state()
        names = await self.emit_upto(cmd.now)
        return ClockSet(now=cmd.now, events=names)

    async def tick(self) -> float:
        """Real and accelerated modes: emit up to now; returns the real seconds to wait before the next tick (until
        the next boundary, at most 1 s, at least 1 ms)."""
        now = self.now()
        await self.emit_upto(now)
        nb = min((b for cfg in self.book.configs if (b := gametime.next_boundary(cfg, now)) is not None),
                 key=lambda b: b.at, default=None)
        wait = 1.0
        if nb is not None and self.state.factor > 0:
            wait = min(wait, max((nb.at - now).total_seconds() / self.state.factor, 0.001))
        return wait

    async def tick_forever(self, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        """:meth:`tick` until cancelled. A failed tick (database or NATS down) is logged and tried again a second
        later instead of stopping the clock: a failed transaction moved no cursor, and committed events the
        publisher could not send are left to the outbox relay's sweep, so nothing is lost or emitted twice."""
        while True:
            try:
                wait = await self.tick()
            except Exception:
                log.exception("clock_tick_failed")
                wait = 1.0
            await sleep(wait)
