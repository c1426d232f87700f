"""What every cards use case works with: the ports, the seasons (R31) and their seeds, and the eligibility gate."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import date, datetime

import structlog

from turf_cards.ports import CardsStore, Clock
from turf_common.contracts.base import Refusal
from turf_common.outbox import OutboxFlush
from turf_common.rules import gametime
from turf_common.rules.claims import check_open
from turf_common.rules.refusals import Refused, refuse
from turf_common.seasonbook import SeasonBook

log = structlog.get_logger(__name__)

#: R5/R12: how long a player's command at a day's opening instant waits for that day's deal (normally done within
#: milliseconds of the opening; after this the command goes ahead, as claims' GameDays.wait_started does)
DEAL_WAIT_S = 5.0


def dealt_event_id(season_id: str, day: date) -> str:
    """The id of ``card.dealt`` for ``day``'s day start (R12): staged in the deal's own transaction, so its presence
    in the outbox says the deal committed."""
    return f"dealt:{season_id}:{day.isoformat()}"


def refusal(r: Refused) -> Refusal:
    """A rule's refusal as the reply a player reads (R29)."""
    return Refusal(reason=r.reason, message=r.message)


@dataclass
class Cards:
    """The cards service's ports and seasons. ``book``: every season of the catalog (R31), the one in force at an
    instant being ``book.config_at(instant)``; ``seed``: ``TURF_SEED``, from which each season's secret seed comes
    (:meth:`seed_of`, R12.1), each revealed at its season's end."""

    store: CardsStore
    clock: Clock
    relay: OutboxFlush
    book: SeasonBook
    seed: str
    #: seconds a command at a day's opening waits for that day's deal (R5/R12; :meth:`wait_dealt`)
    deal_wait_s: float = DEAL_WAIT_S
    #: game days whose deal this process has seen committed (R12), so only the first command of a day reads
    dealt: set[date] = field(default_factory=set)

    def season_at(self, at: datetime) -> gametime.SeasonConfig:
        """R31: the season in force at ``at`` (running, or the last closed until the next one opens)."""
        return self.book.config_at(at)

    async def season_of(self, season_id: str, at: datetime) -> gametime.SeasonConfig:
        """The season a clock or season event names: the clock stores the catalog before it emits a boundary of a
        season, so the book reads it at once for a season it does not hold yet. Should it still not know it (a
        catalog since changed), the season in force at ``at``."""
        await self.book.holding(season_id)
        return self.book.get(season_id) or self.book.config_at(at)

    def seed_of(self, season_id: str) -> str:
        """R12.1/R31: the secret seed ``season_id``'s draws come from (``TURF_SEED`` itself for the configuration
        file's season, whose commitment was published first; a seed derived from it for every later one)."""
        return self.book.seed(season_id, self.seed)

    @property
    def file_season(self) -> gametime.SeasonConfig:
        """The configuration file's season: the first of every catalog, and the one whose players were verified
        before seasons were joined (R31: every player registered then takes part in it)."""
        return self.book.configs[0]

    async def gate(self, status: str) -> tuple[datetime, gametime.SeasonConfig, Refusal | None]:
        """The game time now, the season in force then, and the refusal of a player's card or trade command at that
        time, if any: R3 (the game must be open), then the player must be verified."""
        now = await self.clock.now()
        season = self.season_at(now)
        r = check_open(season, now)
        if r is None and status != "verified":
            r = refuse("not_eligible", "Only a verified player may play cards.")
        if r is None:
            await self.wait_dealt(season, now)
        return now, season, None if r is None else refusal(r)

    async def wait_dealt(self, season: gametime.SeasonConfig, now: datetime) -> bool:
        """R5/R12: a command of an open game day is ordered after that day's deal: at the opening instant the
        clock's ``clock.day_started`` may still be on its way to this service's consumer (in every clock mode: the
        manual clock's route waits for the services, the real and accelerated ones do not), and a card dealt at
        that day start must already be in hand. Polls the store every 20 ms for at most :attr:`deal_wait_s`
        seconds; False if the deal did not come in that time (the command then goes ahead)."""
        day = gametime.game_day_at(season, now)
        if day is None or day in self.dealt:
            return True
        loop = asyncio.get_running_loop()
        end = loop.time() + self.deal_wait_s
        event_id = dealt_event_id(season.season_id, day)
        while not await self.store.has_staged(event_id):
            if loop.time() > end:
                log.warning("deal_not_seen", game_day=day.isoformat(), waited_s=self.deal_wait_s)
                return False
            await asyncio.sleep(0.02)
        self.dealt.add(day)
        return True
