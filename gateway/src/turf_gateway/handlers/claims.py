"""Claims as use cases (R6–R10): locate the fix on the board, then ask the claims service, which decides."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from turf_common.board import Board
from turf_common.contracts import subjects
from turf_common.contracts.claims import CheckReply, ClaimAcceptedReply, Fix, Home, SubmitClaim
from turf_common.contracts.geo import Located
from turf_gateway.ports import Caller, IdempotencyKeys, Limiter, Services


def locate(board: Board, lat: float, lon: float) -> Located:
    """Where a fix lies (R7): the territory and the distance to its nearest shared border, from the board index this
    gateway loaded at start — the one geo-verify answers ``geo.locate`` from (issue 21: a NATS round trip and two
    process hops less per claim, for a lookup of some microseconds; geo-verify still serves other clients)."""
    loc = board.locate(lat, lon)
    name = board.territories[loc.territory_id].name if loc.territory_id else None
    return Located(territory_id=loc.territory_id, territory_name=name, border_distance_m=loc.border_distance_m)


@dataclass
class Claims:
    services: Services
    board: Board
    limiter: Limiter
    keys: IdempotencyKeys

    def _command(self, caller: Caller, fix: Fix, key: str | None) -> SubmitClaim:
        home = Home(lat=caller.home.lat, lon=caller.home.lon) if caller.home is not None else None
        return SubmitClaim(player_id=caller.id, player_status=caller.status,
                           fix=fix, located=locate(self.board, fix.lat, fix.lon), idempotency_key=key, home=home)

    async def check(self, caller: Caller, fix: Fix, ip: str) -> CheckReply:
        """Would a claim at ``fix`` succeed now (changes no game state; the fix joins the trail, R7.1)? Raises
        ApiError 429 over ``checks_player``/``checks_ip``."""
        await self.limiter.hit("checks_player", caller.id, ("checks_ip", ip))
        return await self.services.ask(subjects.CLAIMS_CHECK, self._command(caller, fix, None), CheckReply, 10)

    async def submit(self, caller: Caller, fix: Fix, ip: str, key: str | None, body: Any) -> ClaimAcceptedReply:
        """Claim the territory at ``fix``. ``body``: the request's JSON, which a repeated ``key`` must repeat
        (issue 15). Raises ApiError: 429, 422 for a key reused with another body, the rule code of R3/R7/R8."""
        await self.limiter.hit("claims_player", caller.id, ("claims_ip", ip))
        if key is not None:
            await self.keys.same_body_or_refuse("claims", caller.id, key, body)
        return await self.services.ask(subjects.CLAIMS_SUBMIT, self._command(caller, fix, key), ClaimAcceptedReply,
                                       10)
