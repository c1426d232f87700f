"""R30's retention job: home addresses and location fixes of every player are erased a configurable time after the
season's close (``TURF_ERASE_AFTER_DAYS``, default 30), on the game clock; each erasure is logged (the organizer's
action log and the process log). Idempotent: every gateway may run it, and a run after it finds nothing left."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import structlog

from turf_common.contracts import subjects
from turf_common.contracts.players import EraseTrails, TrailsErased
from turf_common.rules import retention
from turf_gateway.handlers.calendar import SeasonSource, config_at
from turf_gateway.ports import GameClock, PlayerStore, Services

log = structlog.get_logger(__name__)


@dataclass
class Retention:
    players: PlayerStore
    services: Services
    clock: GameClock
    season: SeasonSource   # R31: the season in force on the game clock
    days: int = retention.DEFAULT_DAYS
    done: bool = False   # this process erased, or found nothing to: later rounds ask nothing

    async def run_once(self) -> bool:
        """Erase when due (R30); whether it ran."""
        now = await self.clock.now()
        if self.done or not retention.erasure_due(config_at(self.season, now), now, self.days):
            return False
        homes = await self.players.erase_homes()
        fixes = 0
        for subject in (subjects.CLAIMS_ERASE_TRAILS, subjects.GEO_ERASE_TRAILS):   # fixes kept before and now
            fixes += (await self.services.ask(subject, EraseTrails(), TrailsErased, 60)).erased
        if homes or fixes:
            await self.players.log_action("retention", "personal_data_erased", None,
                                          f"R30: {self.days} days after the season's close",
                                          {"home_addresses": homes, "location_fixes": fixes})
        log.info("personal_data_erased", home_addresses=homes, location_fixes=fixes, after_days=self.days)
        self.done = True
        return True

    async def run(self, every_s: float = 60.0) -> None:
        """:meth:`run_once` every ``every_s`` seconds (a failed round is tried again at the next)."""
        while True:
            try:
                await self.run_once()
            except Exception as e:
                log.warning("retention_failed", error=f"{type(e).__name__}: {e}")
            await asyncio.sleep(every_s)
