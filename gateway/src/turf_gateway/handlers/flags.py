"""Flags for review (R7.1) as use cases: claims raises them, the organizer clears them here (flags never refuse;
acting on one is a correction, R28, or a disqualification). A flag on a claim that a ``reverse_claim`` correction
undid reads cleared by that correction, however the correction was asked (the flag's button or the corrections
form): there is nothing left to reverse."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from turf_common.contracts import subjects
from turf_common.contracts.claims import FlagOut, FlagsReply, FlagsRequest
from turf_gateway.api import schemas as S
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.calendar import SeasonSource, config_at
from turf_gateway.ports import Clearance, CorrectionLog, FlagClearances, GameClock, Services


@dataclass
class Flags:
    services: Services
    clearances: FlagClearances
    clock: GameClock
    season: SeasonSource   # R31: each time in the zone of its season
    corrections: CorrectionLog

    async def _cleared(self) -> dict[str, Clearance]:
        """Flag or claim id → its clearance: the organizer's own (by flag id), and each reversed claim's (by claim
        id, R28: ``claim reversed: <the correction's public reason>``, at the correction's time)."""
        out = await self.clearances.all()
        for r in await self.corrections.records():
            tz = config_at(self.season, r.at).tz
            claim = r.request.get("claim_id") if r.action == "reverse_claim" else None
            if claim:
                out.setdefault("claim:" + claim, Clearance(at=r.at.astimezone(tz).isoformat(), by=r.by,
                                                           reason=f"claim reversed: {r.reason}"))
        return out

    @staticmethod
    def _clearance(flag: FlagOut, cleared: dict[str, Clearance]) -> Clearance | None:
        return cleared.get(flag.id) or (cleared.get("claim:" + flag.claim_id) if flag.claim_id else None)

    def _out(self, flag: FlagOut, cleared: Clearance | None) -> S.Flag:
        """The flag as API.md gives it (``at`` in the season's zone, like every game time), with its review state
        and how many times it was raised, ``last_at`` the latest."""
        tz = config_at(self.season, flag.at).tz
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
        cleared = await self._cleared()
        return S.Flags(flags=[self._out(f, self._clearance(f, cleared)) for f in flags])

    async def clear(self, flag_id: str, by: str, reason: str) -> S.Flag:
        """Clear a flag once; 404 ``not_found`` for an unknown one."""
        flag = next((f for f in await self._all() if f.id == flag_id), None)
        if flag is None:
            raise ApiError("not_found", "No such flag.")
        done = self._clearance(flag, await self._cleared())
        if done is not None:   # cleared already, by the organizer or by reversing its claim: the first clearance
            return self._out(flag, done)
        now = await self.clock.now()
        local = now.astimezone(config_at(self.season, now).tz)
        cleared = await self.clearances.clear(flag_id, by, reason or None, {
            "at": local.isoformat(), "kind": flag.kind, "player_id": flag.player_id, "claim_id": flag.claim_id})
        return self._out(flag, cleared)
