"""What every cards use case works with: the ports, the season and its seed, and the eligibility gate."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from turf_cards.ports import CardsStore, Clock, Publisher
from turf_common.contracts.base import Refusal
from turf_common.rules import gametime
from turf_common.rules.claims import check_open
from turf_common.rules.refusals import Refused, refuse


def refusal(r: Refused) -> Refusal:
    """A rule's refusal as the reply a player reads (R29)."""
    return Refusal(reason=r.reason, message=r.message)


@dataclass
class Cards:
    """The cards service's ports and season. ``seed``: the season's secret seed (R12), revealed at its end."""

    store: CardsStore
    clock: Clock
    publisher: Publisher
    season: gametime.SeasonConfig
    seed: str

    @property
    def season_id(self) -> str:
        return self.season.season_id

    async def gate(self, status: str) -> tuple[datetime, Refusal | None]:
        """The game time now, and the refusal of a player's card or trade command at that time, if any: R3 (the
        game must be open), then the player must be verified."""
        now = await self.clock.now()
        r = check_open(self.season, now)
        if r is None and status != "verified":
            r = refuse("not_eligible", "Only a verified player may play cards.")
        return now, None if r is None else refusal(r)
