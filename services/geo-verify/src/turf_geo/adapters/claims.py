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
    """:class:`turf_geo.ports.Claims` over the bus. ``timeout``: seconds to wait for claims' answer, less than the
    gateway waits for the whole path (10 s), so the gateway hears ``unavailable`` from here rather than nothing.
    While nobody listens (a claims process restarting), nothing was taken, so the claim is asked again within
    that time; a claim taken and not answered in time is never asked twice (it may have been decided)."""

    broker: NatsBroker
    timeout: float = 8.0

    async def ask(self, subject: str, claim: VerifiedClaim) -> bytes:
        body = claim.model_dump_json().encode()
        loop = asyncio.get_running_loop()
        end = loop.time() + self.timeout
        while True:
            try:
                return await ask_raw(self.broker, subject, body, max(end - loop.time(), RETRY_S))
            except BusError as e:
                if isinstance(e.__cause__, nats.errors.NoRespondersError) and loop.time() + RETRY_S < end:
                    await asyncio.sleep(RETRY_S)
                    continue
                raise Unavailable(str(e)) from e
