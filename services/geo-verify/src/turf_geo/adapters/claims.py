"""The claims service over NATS, the claim path's second stage (``claims.verified.*``)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import nats
from faststream.nats import NatsBroker

from turf_common.bus import BusError, ask_raw
from turf_common.contracts.geo import VerifiedClaim
from turf_geo.ports import Unavailable

#: seconds between asks while no claims process listens (a rolling restart)
RETRY_S = 0.2


@dataclass
class NatsClaims:
    """:class:`turf_geo.ports.Claims` over the bus. While nobody listens (a claims process restarting), nothing was
    taken, so the claim is asked again for up to ``retry_for`` seconds, well within the gateway's wait for the
    whole path (10 s): a claim is never handed on once its requester may have given up. A claim taken is waited for
    up to ``timeout`` seconds, longer than the gateway waits: one taken and never answered (its process stopped
    before it began) is answered by nobody, as before the pipeline, and never asked twice (it may have been
    decided)."""

    broker: NatsBroker
    timeout: float = 15.0
    retry_for: float = 6.0

    async def ask(self, subject: str, claim: VerifiedClaim) -> bytes:
        body = claim.model_dump_json().encode()
        loop = asyncio.get_running_loop()
        start = loop.time()
        while True:
            try:
                return await ask_raw(self.broker, subject, body, max(start + self.timeout - loop.time(), RETRY_S))
            except BusError as e:
                if isinstance(e.__cause__, nats.errors.NoRespondersError) and \
                        loop.time() + RETRY_S < start + self.retry_for:
                    await asyncio.sleep(RETRY_S)
                    continue
                raise Unavailable(str(e)) from e
