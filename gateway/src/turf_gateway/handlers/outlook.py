"""A player's territories and deadlines at the game clock's instant, asked of the claims service
(``claims.outlook``), which reads its own state then: the play page's countdowns (docs/countdowns.md)."""

from __future__ import annotations

from dataclasses import dataclass

from turf_common.contracts import subjects
from turf_common.contracts.outlook import OutlookReply, OutlookRequest
from turf_gateway.ports import Services


@dataclass
class Outlook:
    services: Services

    async def territories(self, player_id: str) -> OutlookReply:
        """The player's territories with their streak (R9, R11), Freeze (R15), same-day lock (R10) and War state
        (R14); the War deadlines on steals of them (R4/R14), the reclaim windows the player holds, today's claims
        a Mulligan may undo (R19). Changes nothing; empty lists for the organizer, who owns nothing."""
        return await self.services.ask(subjects.CLAIMS_OUTLOOK, OutlookRequest(player_id=player_id), OutlookReply)
