"""Opening a turn-based game (issue 32) as a use case: a repeated ``Idempotency-Key`` answers the first game only
to a request with the same body; with another body it is 422 ``invalid_input`` before the modes service is asked
(issue 15, as for claims and corrections)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from turf_common.contracts.modes import CreateTeamTurf, GameView, OpenHill
from turf_gateway.ports import IdempotencyKeys, Services

TIMEOUT = 10.0   # a command waits on its game's row lock


@dataclass
class Modes:
    services: Services
    keys: IdempotencyKeys

    async def open(self, subject: str, cmd: CreateTeamTurf | OpenHill, caller_id: str, key: str | None,
                   body: Any) -> GameView:
        """Ask ``subject`` to make the game of ``cmd`` (its ``command_id`` one per caller and key). ``body``: the
        request's JSON, which a repeated ``key`` must repeat. Raises ApiError 422 ``invalid_input`` for a key
        reused with another body, the service's refusal otherwise."""
        if key is not None:
            await self.keys.same_body_or_refuse(subject, caller_id, key, body)
        return await self.services.ask(subject, cmd, GameView, TIMEOUT)
