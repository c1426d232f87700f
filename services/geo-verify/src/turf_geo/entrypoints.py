"""NATS subscribers of geo-verify: decode, call a handler, reply."""

from __future__ import annotations

from faststream.nats import NatsRouter

from turf_common.contracts import subjects
from turf_common.contracts.geo import Located, LocatePoint, Verified, VerifyFixes
from turf_geo.handlers import GeoHandlers

QUEUE = "geo-verify"


def router(h: GeoHandlers, stream: str) -> NatsRouter:
    """``stream`` is unused: geo-verify consumes and publishes no events (kept for the one shape)."""
    r = NatsRouter()

    # the lookup is pure CPU and never awaits: one worker answers each request before taking the next
    @r.subscriber(subjects.GEO_LOCATE, queue=QUEUE, title="geo.locate")
    async def locate(q: LocatePoint) -> Located:
        return h.locate(q)

    # R7 and R7.1 for a batch of claims (the claims service asks once per batch): pure CPU as well
    @r.subscriber(subjects.GEO_VERIFY, queue=QUEUE, title=subjects.GEO_VERIFY)
    async def verify(q: VerifyFixes) -> Verified:
        return h.verify(q)

    return r
