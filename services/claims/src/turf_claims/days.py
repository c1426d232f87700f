"""R5: a game day's start work (R15/R16: scheduled Freezes and Blockades become active or lapse), and the gate that
holds claims and card effects of a day until that work is done."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Literal

import structlog

from turf_claims.boards import Boards
from turf_claims.ports import ClaimsStore, ClaimsTx
from turf_common.contracts import subjects
from turf_common.contracts.clock import DayStarted
from turf_common.contracts.effects import ProtectionResolved
from turf_common.outbox import OutboxFlush
from turf_common.rules import cards as rules

log = structlog.get_logger(__name__)


@dataclass
class GameDays:
    store: ClaimsStore
    relay: OutboxFlush
    #: R31: the season of each day, and its board
    boards: Boards
    _started: set[date] = field(default_factory=set)
    _signals: dict[date, asyncio.Event] = field(default_factory=dict)
    _polls: dict[date, asyncio.Task[bool]] = field(default_factory=dict)

    async def day_started(self, ev: DayStarted) -> None:
        """R5: day-start work for ``ev.game_day``, once per day (inbox), then mark the day started so claims of
        that day may be decided. R31: on the board of the day's season (made here at its first day at the latest,
        before any claim of it is decided)."""
        cfg = self.boards.season_of_day(ev.game_day)
        await self.boards.ready(cfg.season_id)
        async with self.store.begin(cfg.season_id) as tx:
            if not await tx.messages.first_time(ev.event_id, subjects.CLOCK_DAY_STARTED):
                return
            await activate_protections(tx, ev.game_day, ev.at)  # R15, R16
            await tx.days.mark_day_started(ev.game_day, ev.at)
        self._mark(ev.game_day)
        await self.relay.flush()

    def _mark(self, day: date) -> None:
        self._started.add(day)
        self._signals.setdefault(day, asyncio.Event()).set()

    async def wait_started(self, day: date, timeout: float = 5.0) -> bool:
        """R5: hold a claim, check or card effect of ``day`` until that day's start work is done (it is normally
        done within milliseconds of the opening instant). False when it is not done within ``timeout`` seconds.
        Woken at once when this process runs the day start; otherwise (another replica ran it) the store is read
        every 50 ms, one read at a time for all waiters, so a burst at the opening instant costs no burst of
        queries."""
        if day in self._started:
            return True
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        signal = self._signals.setdefault(day, asyncio.Event())
        while True:
            if await self._poll(day):
                return True
            left = end - loop.time()
            if left <= 0:
                return False
            try:
                await asyncio.wait_for(signal.wait(), min(0.05, left))
                return True
            except TimeoutError:
                pass

    async def _poll(self, day: date) -> bool:
        """Whether the store says ``day`` has started; concurrent callers share one read."""
        if day in self._started:
            return True
        task = self._polls.get(day)
        if task is None or task.done():
            task = self._polls[day] = asyncio.ensure_future(self._read(day))
        return await asyncio.shield(task)

    async def _read(self, day: date) -> bool:
        async with self.store.connect(self.boards.season_of_day(day).season_id) as tx:
            started = await tx.days.day_started(day)
        if started:
            self._mark(day)
        return started


async def activate_protections(tx: ClaimsTx, day: date, at: datetime) -> list[ProtectionResolved]:
    """R15/R16 at the day start of ``day`` (inside the day-start transaction): each Freeze/Blockade scheduled for
    it becomes active (its card is consumed) or lapses (its card returns); one scheduled for an earlier day that
    was somehow never resolved lapses. Stages ``protection.activated`` / ``protection.lapsed``."""
    due = await tx.protections.due_protections_for_update(day)
    excluded = await tx.exclusions.excluded_players()
    out = []
    for r in due:
        owner = await tx.ownership.owner_of(r.territory_id) if r.kind == "freeze" and r.territory_id else None
        active = r.day == day and rules.protection_activates(
            r.kind, r.player_id, territory_owner=owner, excluded=excluded, rival_id=r.rival_id)
        state: Literal["active", "lapsed"] = "active" if active else "lapsed"
        reason = None if active else ("not_owner" if r.kind == "freeze" and r.player_id not in excluded
                                      else "disqualified" if r.day == day else "missed")
        await tx.protections.resolve_protection(r.card_id, state, at)
        # a lapsed card may be scheduled again for a later day: the day makes the event id unique
        ev = ProtectionResolved(type="protection.activated" if active else "protection.lapsed",
                                event_id=f"protection:{r.card_id}:{r.day.isoformat()}", occurred_at=at,
                                card_id=r.card_id, player_id=r.player_id, kind=r.kind, day=r.day,
                                territory_id=r.territory_id, rival_id=r.rival_id, state=state, reason=reason)
        await tx.messages.stage(ev.type, ev)
        out.append(ev)
    if out:
        log.info("protections_resolved", day=day.isoformat(), active=sum(1 for e in out if e.state == "active"),
                 lapsed=sum(1 for e in out if e.state == "lapsed"))
    return out


async def lapse_protections_of(tx: ClaimsTx, player_id: str, at: datetime) -> list[ProtectionResolved]:
    """R28 (amended), R16: at a disqualification, the player's scheduled Freezes and Blockades, and the Blockades
    scheduled against them, lapse at once (reason ``disqualified``; their cards return) instead of waiting for
    their day start. Stages ``protection.lapsed`` with the id the day start would have used, so each card is
    resolved once."""
    out = []
    for r in await tx.protections.scheduled_protections_involving_for_update(player_id):
        await tx.protections.resolve_protection(r.card_id, "lapsed", at)
        ev = ProtectionResolved(type="protection.lapsed", event_id=f"protection:{r.card_id}:{r.day.isoformat()}",
                                occurred_at=at, card_id=r.card_id, player_id=r.player_id, kind=r.kind, day=r.day,
                                territory_id=r.territory_id, rival_id=r.rival_id, state="lapsed",
                                reason="disqualified")
        await tx.messages.stage(ev.type, ev)
        out.append(ev)
    return out
