"""Refusals from memory (docs/architecture/claim-path.md, "The stages"): the facts of a game day that only grow — the
normal claims each player made (R6, R8), the players who made one on each town (R10) — held in this process,
loaded once a day from the store and kept by this process's commits and by the other replicas' ``claim.accepted``
events, so that a refusal they make certain, and a check, cost no transaction. Memory only ever refuses: an
acceptance is decided under the row lock.

A day's memory stops answering (it is *tainted*) as soon as anything that can shrink those facts or raise an
allowance happens that day: a card effect or a correction on this process (before it is applied), or the events
of one elsewhere (``card.played``, ``correction.applied``, ``player.disqualified``, a ``territory.changed`` not
caused by a claim). The territories' owners (for a check's answer) follow every ``territory.changed`` by version.

R31: a game day belongs to one season, and each season has its own board: the first day loaded of a new season
replaces the owners held (the new board's versions start again from 0, so merging by version would keep the last
season's owners), and the day's growing facts start empty as every day's do.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import date, datetime

from turf_common.rules.claims import allowance, certain_refusal
from turf_common.rules.refusals import Refused


@dataclass
class DaySnapshot:
    """A game day's facts as the store holds them, on the board of ``season_id`` (the day's season): normal claims
    (claim id, player, territory) of players not excluded (R28), allowances above the standard (player → (extra,
    replacement), R6), the end of the last War reclaim window open at the instant asked (None: none is open), and
    every territory's (owner, version)."""

    season_id: str
    claims: list[tuple[str, str, str]]
    allowances: dict[str, tuple[int, int]]
    windows_until: datetime | None
    owners: dict[str, tuple[str | None, int]]


Load = Callable[[date, datetime], Awaitable[DaySnapshot]]


@dataclass
class _Day:
    day: date
    used: dict[str, set[str]] = field(default_factory=dict)       # player -> normal claim ids (R6, R8)
    lockers: dict[str, set[str]] = field(default_factory=dict)    # territory -> players with one on it (R10)
    allowances: dict[str, tuple[int, int]] = field(default_factory=dict)
    windows_until: datetime | None = None
    tainted: bool = False
    loaded: asyncio.Future[None] | None = None


@dataclass
class DayMemory:
    """The game day's growing facts and the territories' owners; ``load`` reads a day's from the store (outside
    any transaction, once per day per process)."""

    load: Load
    owners: dict[str, tuple[str | None, int]] = field(default_factory=dict)
    #: the season whose board ``owners`` are of (None until a day is loaded)
    season_id: str | None = None
    _day: _Day | None = None
    loads: int = 0

    async def refusal(self, player_id: str, eligible: bool, territory_id: str, day: date,
                      now: datetime) -> Refused | None:
        """R8's refusal these facts make certain for ``player_id`` claiming ``territory_id`` on ``day`` at
        ``now`` (see :func:`certain_refusal`), or None: decide under the lock."""
        d = await self._loaded(day, now)
        if d is None or d.tainted:
            return None
        extra, replacement = d.allowances.get(player_id, (0, 0))
        locked = any(p != player_id for p in d.lockers.get(territory_id, ()))
        window_open = d.windows_until is not None and d.windows_until > now
        return certain_refusal(eligible, len(d.used.get(player_id, ())), allowance(extra, replacement), locked,
                               window_open)

    async def ready(self, day: date, now: datetime) -> bool:
        """Load ``day``'s facts if not yet done; False for a day before the one in memory."""
        return await self._loaded(day, now) is not None

    def owner_of(self, territory_id: str) -> str | None:
        return self.owners.get(territory_id, (None, 0))[0]

    def claimed(self, day: date, claim_id: str, player_id: str, territory_id: str, normal: bool) -> None:
        """A claim committed (here or by another replica: ``claim.accepted``); a War reclaim (not normal) spends
        no allowance and locks nothing (R14)."""
        d = self._for(day)
        if normal and d is not None:
            d.used.setdefault(player_id, set()).add(claim_id)
            d.lockers.setdefault(territory_id, set()).add(player_id)

    def territory_changed(self, territory_id: str, owner_id: str | None, version: int) -> None:
        """A territory's new state (here or elsewhere), applied when newer than the one held."""
        if version > self.owners.get(territory_id, (None, -1))[1]:
            self.owners[territory_id] = (owner_id, version)

    def taint(self, day: date | None) -> None:
        """Something that may shrink the growing facts or raise an allowance happened on ``day`` (None: on no
        game day, nothing to taint): its memory answers nothing more."""
        d = None if day is None else self._for(day)
        if d is not None:
            d.tainted = True

    def _for(self, day: date) -> _Day | None:
        """The memory of ``day``, made empty when memory held an earlier day; None for an earlier day."""
        if self._day is None or self._day.day < day:
            self._day = _Day(day)
        return self._day if self._day.day == day else None

    async def _loaded(self, day: date, now: datetime) -> _Day | None:
        d = self._for(day)
        if d is None:
            return None
        if d.loaded is None:
            d.loaded = asyncio.get_running_loop().create_future()
            try:
                snap = await self.load(day, now)
            except BaseException as e:
                d.loaded.set_exception(e)
                d.loaded.exception()   # retrieved: the next caller loads again
                d.loaded = None
                raise
            self.loads += 1
            for cid, pid, tid in snap.claims:   # a union: events applied meanwhile stay
                d.used.setdefault(pid, set()).add(cid)
                d.lockers.setdefault(tid, set()).add(pid)
            d.allowances = snap.allowances
            d.windows_until = snap.windows_until
            if snap.season_id != self.season_id:   # R31: another season's board, its versions from 0 again
                self.season_id, self.owners = snap.season_id, dict(snap.owners)
            for tid, (owner, version) in snap.owners.items():
                if version > self.owners.get(tid, (None, -1))[1]:
                    self.owners[tid] = (owner, version)
            d.loaded.set_result(None)
        else:
            await asyncio.shield(d.loaded)
        return d
