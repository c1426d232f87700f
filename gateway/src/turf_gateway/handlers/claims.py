"""Claims as use cases (R6–R10): ask the claim path, whose first stage, geo-verify, judges where the fix lies (R7)
and what the player's trail shows (R7.1) and hands the claim on to the claims service, which decides and answers
after its commit (docs/architecture/claim-path.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from turf_common.bus import BusError
from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.claims import CheckReply, ClaimAcceptedReply, Fix, Home, SubmitClaim
from turf_gateway.api.errors import ApiError
from turf_gateway.ports import Caller, IdempotencyKeys, Limiter, Services

if TYPE_CHECKING:
    from turf_gateway.handlers.seasons import Seasons

M = TypeVar("M", bound=Message)
#: nobody answers the claim path's first stage: geo-verify is down (as geo-verify says when claims is)
LOCATION_DOWN = "The location service is not answering; try again shortly."


@dataclass
class Claims:
    services: Services
    limiter: Limiter
    keys: IdempotencyKeys
    #: R31: between seasons, a refusal names the next season's opening; a player who has not joined the running
    #: season is refused ``not_joined`` here, from the session's cached caller
    seasons: Seasons | None = None

    def _command(self, caller: Caller, fix: Fix, key: str | None) -> SubmitClaim:
        home = Home(lat=caller.home.lat, lon=caller.home.lon) if caller.home is not None else None
        return SubmitClaim(player_id=caller.id, player_status=caller.status,
                           fix=fix, idempotency_key=key, home=home)

    async def check(self, caller: Caller, fix: Fix, ip: str) -> CheckReply:
        """Would a claim at ``fix`` succeed now (changes no game state; the fix joins the trail, R7.1)? Raises
        ApiError 429 over ``checks_player``/``checks_ip``."""
        await self.limiter.hit("checks_player", caller.id, ("checks_ip", ip))
        if self.seasons is not None and (refused := await self.seasons.not_joined(caller)) is not None:
            # not a player of this season: nothing to judge, and the fix joins no trail of it (R31)
            return CheckReply(territory=None, allowed=False, reason=refused.reason, message=refused.message)
        answer = await self._ask(subjects.CLAIMS_CHECK, self._command(caller, fix, None), CheckReply)
        if answer.reason == "season_closed" and (upcoming := await self._between_seasons()) is not None:
            return answer.model_copy(update={"reason": upcoming.reason, "message": upcoming.message})
        return answer

    async def submit(self, caller: Caller, fix: Fix, ip: str, key: str | None, body: Any) -> ClaimAcceptedReply:
        """Claim the territory at ``fix``. ``body``: the request's JSON, which a repeated ``key`` must repeat.
        Raises ApiError: 429, 422 for a key reused with another body, the rule code of R3/R7/R8."""
        await self.limiter.hit("claims_player", caller.id, ("claims_ip", ip))
        if self.seasons is not None and (refused := await self.seasons.not_joined(caller)) is not None:
            raise ApiError(refused.reason, refused.message)
        if key is not None:
            await self.keys.same_body_or_refuse("claims", caller.id, key, body)
        return await self._ask(subjects.CLAIMS_SUBMIT, self._command(caller, fix, key), ClaimAcceptedReply)

    async def _ask(self, subject: str, cmd: SubmitClaim, reply: type[M]) -> M:
        try:
            return await self.services.ask(subject, cmd, reply, 10)
        except BusError as e:
            raise ApiError("unavailable", LOCATION_DOWN, 503) from e
        except ApiError as e:
            if e.reason == "season_closed" and (upcoming := await self._between_seasons()) is not None:
                raise ApiError(upcoming.reason, upcoming.message) from None
            raise

    async def _between_seasons(self) -> ApiError | None:
        """R31: once a season has closed and the organizer has announced the next, its refusal is
        ``season_not_started`` naming the next first opening, not ``season_closed`` (None: no next season)."""
        if self.seasons is None:
            return None
        refused = await self.seasons.refusal(set())
        if refused is None or refused.reason != "season_not_started":
            return None
        return ApiError(refused.reason, refused.message)
