"""The claims service over NATS, the claim path's second stage (``claims.verified.*``)."""

from __future__ import annotations

from dataclasses import dataclass

from faststream.nats import NatsBroker

from turf_common.bus import BusError, ask_raw
from turf_common.contracts.geo import VerifiedClaim
from turf_geo.ports import Unavailable


@dataclass
class NatsClaims:
    """:class:`turf_geo.ports.Claims` over the bus. ``timeout``: seconds to wait for claims' answer, less than the
    gateway waits for the whole path (10 s), so the gateway hears ``unavailable`` from here rather than nothing."""

    broker: NatsBroker
    timeout: float = 8.0

    async def ask(self, subject: str, claim: VerifiedClaim) -> bytes:
        try:
            return await ask_raw(self.broker, subject, claim, self.timeout)
        except BusError as e:
            raise Unavailable(str(e)) from e
