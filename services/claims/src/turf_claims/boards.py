"""R31: the season of an instant, and each season's board. Every season has its own board: at a season's first
opening it holds every territory unowned, with no fortification (the rows a new season starts from), and the last
season's board stays as it ended. The season in force at an instant is the season book's
(:class:`turf_common.seasonbook.SeasonBook`); its board's rows are made here, idempotently (INSERT … ON CONFLICT DO
NOTHING), once per season and process: at start for every season the book holds, at a day start, and before the
first unit of work on a season this process has not made yet (a season the book learnt since), so a claim pays no
round trip for it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import date, datetime

from turf_claims.ports import ClaimsStore
from turf_common.rules.gametime import SeasonConfig
from turf_common.seasonbook import SeasonBook


@dataclass
class Boards:
    """``names``: the board's territory ids (and names), the rows every season's board has."""

    book: SeasonBook
    store: ClaimsStore
    names: dict[str, str]
    _made: set[str] = field(default_factory=set)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def config_at(self, now: datetime) -> SeasonConfig:
        """The season in force at ``now`` (R31): its calendar, limits and board."""
        return self.book.config_at(now)

    def season_of_day(self, day: date) -> SeasonConfig:
        """The season whose days hold ``day`` (two seasons' days never overlap, R31); else the one in force at
        its start."""
        for cfg in self.book.configs:
            if cfg.first_day <= day <= cfg.last_day:
                return cfg
        return self.book.configs[0] if day < self.book.configs[0].first_day else self.book.configs[-1]

    async def at(self, now: datetime) -> SeasonConfig:
        """:meth:`config_at`, its board made."""
        cfg = self.config_at(now)
        await self.ready(cfg.season_id)
        return cfg

    async def ready(self, season_id: str) -> None:
        """Make the board of ``season_id`` unless this process did (outside any transaction: its own)."""
        if season_id in self._made:
            return
        async with self._lock:
            if season_id not in self._made:
                await self.store.seed_territories(season_id, list(self.names))
                self._made.add(season_id)

    async def ready_all(self) -> None:
        """Every season the book holds has its board (at start)."""
        for cfg in self.book.configs:
            await self.ready(cfg.season_id)
