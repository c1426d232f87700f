"""The seasons every process plays by (R31), read from the clock's KV bucket (key ``seasons``, which the clock service
writes from the gateway's catalog, ``clock.seasons``) and kept in memory: a handler asks ``book.config_at(now)``
for the calendar and limits in force at ``now`` instead of holding one season from a file, so a season the
organizer makes opens its board at its first opening without a restart.

Before the clock has stored a catalog (a new deployment's first seconds, unit tests) the book holds the season
of the configuration file (``TURF_SEASON_FILE``) alone, which is also the first season of every catalog."""

from __future__ import annotations

import asyncio
import contextlib
from bisect import bisect_right
from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any

import structlog

from turf_common.contracts.clock import SeasonCalendar, SetSeasons
from turf_common.gameclock import KvSource
from turf_common.rules import gametime, seasons
from turf_common.rules.cards import seed_commitment
from turf_common.rules.gametime import SeasonConfig

log = structlog.get_logger(__name__)

SEASONS_KEY = "seasons"


class SeasonBook:
    """Every season's :class:`SeasonConfig`, answered from memory. ``fallback``: the configuration file's season,
    the book's content until a catalog arrives."""

    #: seconds between direct reads of the entry, the watch's safety net (as for the game clock)
    POLL_S = 2.0

    def __init__(self, fallback: SeasonConfig, kv: KvSource | None = None) -> None:
        self._open = kv
        self._kv: Any = None
        self._tasks: list[asyncio.Task[None]] = []
        self._calendars: tuple[SeasonCalendar, ...] = ()
        self._fallback = fallback
        self._set((fallback,))

    @classmethod
    def of(cls, *configs: SeasonConfig) -> SeasonBook:
        """A fixed book (unit tests, tools): ``configs[0]`` is also the fallback."""
        book = cls(configs[0])
        book._set(configs)
        return book

    # ---- answers -------------------------------------------------------------------------------------------------

    def config_at(self, at: datetime) -> SeasonConfig:
        """R31: the calendar and limits in force at ``at``: the latest season opened by then (running, or the last
        closed until the next one opens), else the first upcoming one."""
        i = bisect_right(self._opens, at)
        return self._ordered[i - 1] if i else self._ordered[0]

    def get(self, season_id: str) -> SeasonConfig | None:
        return self._by_id.get(season_id)

    @property
    def configs(self) -> tuple[SeasonConfig, ...]:
        """Every season, in order of first opening."""
        return self._ordered

    def seed(self, season_id: str, master_seed: str) -> str:
        """R12.1: the secret card seed of ``season_id``: ``TURF_SEED`` itself for the season whose published
        commitment is that of ``TURF_SEED`` (the configuration file's), else the seed derived for the season."""
        cal = self._calendar(season_id)
        if cal is None and season_id == self._fallback.season_id:
            return master_seed
        if cal is not None and cal.seed_commitment == seed_commitment(master_seed):
            return master_seed
        return seasons.season_seed(master_seed, season_id)

    def prizes(self, season_id: str) -> tuple[Decimal, ...] | None:
        """R26: ``season_id``'s prize of each place from the first, as the organizer made the season; None when
        the catalog gives none (the deployment's prize file pays)."""
        cal = self._calendar(season_id)
        return tuple(Decimal(p) for p in cal.prizes) if cal is not None and cal.prizes else None

    # ---- the catalog ---------------------------------------------------------------------------------------------

    def _calendar(self, season_id: str) -> SeasonCalendar | None:
        return next((c for c in self._calendars if c.config.get("season_id") == season_id), None)

    def _set(self, configs: Iterable[SeasonConfig]) -> None:
        ordered = sorted(configs, key=gametime.season_opens_at)
        self._ordered = tuple(ordered) or (self._fallback,)
        self._opens = [gametime.season_opens_at(c) for c in self._ordered]
        self._by_id = {c.season_id: c for c in self._ordered}

    def apply(self, value: bytes | str | None) -> bool:
        """Take a stored catalog (the KV entry's value); True when it changed the book. A value that does not parse
        is logged and ignored (the book keeps what it had)."""
        if not value:
            return False
        try:
            cals = SetSeasons.model_validate_json(value).seasons
            configs = [SeasonConfig.from_dict(c.config) for c in cals]
        except ValueError as e:
            log.warning("season_book_unreadable", error=str(e))
            return False
        if tuple(cals) == self._calendars:
            return False
        self._calendars = tuple(cals)
        self._set(configs)
        log.info("season_book", seasons=[c.season_id for c in self._ordered])
        return True

    async def bucket(self) -> Any:
        assert self._open is not None, "a fixed book has no KV bucket"
        if self._kv is None:
            self._kv = await self._open()
        return self._kv

    async def refresh(self) -> None:
        """Read the entry now (a process at start, or when the watch may be behind); nothing for a fixed book."""
        if self._open is None:
            return
        try:
            entry = await (await self.bucket()).get(SEASONS_KEY)
        except Exception as e:   # nats-py's KeyNotFoundError: no catalog stored yet
            if type(e).__name__ not in ("KeyNotFoundError", "KeyDeletedError"):
                raise
            return
        self.apply(entry.value)

    async def holding(self, season_id: str) -> None:
        """Read the entry now unless the book holds ``season_id`` (a clock event of a season the watch has not
        brought yet: the clock stores the catalog before it emits a boundary of it)."""
        if season_id not in self._by_id:
            await self.refresh()

    async def caught_up_to(self, at: datetime) -> None:
        """Read the entry now when ``at`` is at or past the close of the season in force at it: a season opening
        after that close may not have come through the watch yet (R31: an event of its first opening must not be
        counted in the last season)."""
        if at >= gametime.season_closes_at(self.config_at(at)):
            await self.refresh()

    async def start(self) -> None:
        """Read the catalog, then follow it: a watch (every write arrives as the stream stores it) and a poll."""
        if self._open is None:
            return
        await self.refresh()
        kv = await self.bucket()
        watcher = await kv.watch(SEASONS_KEY)
        self._tasks = [asyncio.create_task(self._follow(watcher)), asyncio.create_task(self._poll())]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _follow(self, watcher: Any) -> None:
        try:
            async for entry in watcher:
                if entry is not None and getattr(entry, "operation", None) not in ("DEL", "PURGE"):
                    self.apply(entry.value)
        finally:
            with contextlib.suppress(Exception):
                await watcher.stop()

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(self.POLL_S)
            with contextlib.suppress(Exception):   # NATS down: the next round asks again
                await self.refresh()
