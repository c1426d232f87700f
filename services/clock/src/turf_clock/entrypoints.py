"""NATS subscribers of the clock service: decode, call a handler, reply; and the events it publishes."""

from __future__ import annotations

from faststream.nats import NatsRouter

from turf_clock.handlers import EVENTS, ClockHandlers
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.clock import ClockSet, SeasonsSet, SetClock, SetSeasons

QUEUE = "clock"


def router(h: ClockHandlers, stream: str) -> NatsRouter:
    r = NatsRouter()

    # one worker: moves are applied one after another, each answered once its boundaries are published
    @r.subscriber(subjects.CLOCK_SET, queue=QUEUE, title=subjects.CLOCK_SET,
                  description="Move a manual clock forward; answered once the boundaries it passes are published.")
    async def set_clock(cmd: SetClock) -> ClockSet | Refusal:
        return await h.set(cmd)

    @r.subscriber(subjects.CLOCK_SEASONS, queue=QUEUE, title=subjects.CLOCK_SEASONS,
                  description="The catalog of seasons (R31), from the gateway: stored for every process's season "
                              "book, answered once the boundaries it makes due are published.")
    async def set_seasons(cmd: SetSeasons) -> SeasonsSet:
        return await h.set_seasons(cmd)

    # documentation of the events (AsyncAPI): the outbox relay publishes them, in boundary order
    for subject, model in EVENTS.values():
        r.publisher(subject, schema=model, title=subject,
                    description=f"Published by clock through its outbox into the JetStream stream {stream}, "
                                "with Nats-Msg-Id = event_id.")
    return r
