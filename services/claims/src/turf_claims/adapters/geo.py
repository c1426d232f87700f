"""geo-verify over NATS: ``geo.verify`` once per batch of claims (R7, R7.1)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from faststream.nats import NatsBroker

from turf_claims.ports import GeoUnavailable
from turf_common.bus import BusError, ask
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.geo import FixToVerify, Verdict, Verified, VerifyFixes

#: trail fixes a request carries at most (about 100 bytes each in JSON): a batch whose trails are longer is asked in
#: a few requests, each well under NATS's default 1 MB message
MAX_TRAIL_FIXES = 4000


@dataclass
class NatsGeo:
    """:class:`turf_claims.ports.Geo` over the bus. ``timeout``: seconds to wait for geo-verify (the caller holds a
    transaction and its players' locks meanwhile; nobody subscribed is known at once)."""

    broker: NatsBroker
    timeout: float = 2.0

    async def verify(self, fixes: Sequence[FixToVerify]) -> list[Verdict]:
        out: list[Verdict] = []
        for part in _parts(fixes):
            try:
                reply = await ask(self.broker, subjects.GEO_VERIFY, VerifyFixes.model_construct(fixes=part),
                                  Verified, self.timeout)
            except BusError as e:
                raise GeoUnavailable(str(e)) from e
            if isinstance(reply, Refusal) or len(reply.verdicts) != len(part):
                raise GeoUnavailable(f"{subjects.GEO_VERIFY}: {reply}")
            out.extend(reply.verdicts)
        return out


def _parts(fixes: Sequence[FixToVerify]) -> Iterator[list[FixToVerify]]:
    """``fixes`` in order, cut where the trails carried would pass :data:`MAX_TRAIL_FIXES` (never empty parts)."""
    part: list[FixToVerify] = []
    carried = 0
    for f in fixes:
        n = len(f.trail or ())
        if part and carried + n > MAX_TRAIL_FIXES:
            yield part
            part, carried = [], 0
        part.append(f)
        carried += n
    if part:
        yield part
