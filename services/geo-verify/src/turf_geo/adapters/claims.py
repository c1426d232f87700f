"""The claims service over NATS, the claim path's second stage (``claims.verified.*``)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import nats
from faststream.nats import NatsBroker

from turf_common.bus import BusError, ask_raw
from turf_common.contracts.geo import VerifiedClaim
from turf_geo.ports import NotHandedOn, Unavailable

#: seconds between asks while no claims process listens (a rolling restart)
RETRY_S = 0.2


@dataclass
class NatsClaims:
    """:class:`turf_geo.ports.ClaimsHandOn` over the bus. While nobody listens (a claims process restarting), nothing
    was taken, so the claim is asked again for up to ``retry_for`` seconds, well within the gateway's wait for the whole
    path (10 s): a claim is never handed on once its requester may have given up. A claim taken is waited for up to
    ``timeout`` seconds, longer than the gateway waits (a stopping claims process answers every claim it took before it
    exits, ``turf_common.bus.fixes.draining_stop``): one never answered is never asked twice (it may have been decided).
    Nobody listening for the whole window raises :class:`NotHandedOn`."""

    broker: NatsBroker
    timeout: float = 15.0
    retry_for: float = 6.0

    async def ask(self, subject: str, claim: VerifiedClaim, within: float | None = None) -> bytes:
        """``within``: the seconds left to hand the claim on (what the claim path has not spent of its window
        since the claim came in); None: ``retry_for``."""
        body = claim.model_dump_json().encode()
        loop = asyncio.get_running_loop()
        start = loop.time()
        hand_on_by = start + (self.retry_for if within is None else within)
        while True:
            try:
                return await ask_raw(self.broker, subject, body, max(start + self.timeout - loop.time(), RETRY_S))
            except BusError as e:
                if not isinstance(e.__cause__, nats.errors.NoRespondersError):
                    raise Unavailable(str(e)) from e
                if loop.time() + RETRY_S >= hand_on_by:
                    raise NotHandedOn(str(e)) from e
                await asyncio.sleep(RETRY_S)
