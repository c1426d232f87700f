"""Flags for review (R7.1) as use cases: claims raises them, the organizer clears them here (flags never refuse;
acting on one is a correction, R28, or a disqualification)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from turf_common.contracts import subjects
from turf_common.contracts.claims import FlagOut, FlagsReply, FlagsRequest
from turf_common.rules import gametime
from turf_gateway.api import schemas as S
from turf_gateway.api.errors import ApiError
from turf_gateway.ports import Clearance, FlagClearances, GameClock, Services


@dataclass
class Flags:
    services: Services
    clearances: FlagClearances
    clock: GameClock
    season: gametime.SeasonConfig

    def _out(self, flag: FlagOut, cleared: Clearance | None) -> S.Flag:
        """The flag as API.md gives it (``at`` in the season's zone, like every game time), with its review state
        and how many times it was raised, ``last_at`` the latest."""
        tz = self.season.tz
        return S.Flag.model_validate(flag.model_dump(mode="json", exclude={"schema_version"}) | {
            "at": flag.at.astimezone(tz).isoformat(), "last_at": (flag.last_at or flag.at).astimezone(tz).isoformat(),
            "state": "cleared" if cleared else "open",
            "cleared": dataclasses.asdict(cleared) if cleared else None})

    async def _all(self) -> list[FlagOut]:
        """Every flag, oldest first, read from claims a page at a time (one reply of them all outgrew
        the bus's payload limit under a flag flood)."""
        out: list[FlagOut] = []
        after: str | None = None
        while True:
            rep = await self.services.ask(subjects.CLAIMS_FLAGS, FlagsRequest(after=after), FlagsReply)
            out += rep.flags
            if rep.next is None:
                return out
            after = rep.next

    async def flags(self) -> S.Flags:
        flags = await self._all()
        cleared = await self.clearances.all()
        return S.Flags(flags=[self._out(f, cleared.get(f.id)) for f in flags])

    async def clear(self, flag_id: str, by: str, reason: str) -> S.Flag:
        """Clear a flag once; 404 ``not_found`` for an unknown one."""
        flag = next((f for f in await self._all() if f.id == flag_id), None)
        if flag is None:
            raise ApiError("not_found", "No such flag.")
        now = await self.clock.now()
        cleared = await self.clearances.clear(flag_id, by, reason or None, {
            "at": now.astimezone(self.season.tz).isoformat(), "kind": flag.kind, "player_id": flag.player_id,
            "claim_id": flag.claim_id})
        return self._out(flag, cleared)
