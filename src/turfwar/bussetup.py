"""The bus set-up, the one place that creates, changes or deletes JetStream streams and consumers. It runs
with the set-up user (``admin``; no running service holds it) before the services start: ``turfwar up`` and the test
stacks (:meth:`turfwar.stack.Stack.start_services`), compose's ``bus-setup`` one-shot and Kubernetes' ``bus-setup``
Job (``turfwar bus-setup``). It declares the event stream, the spectators' feed stream sourced from it (the public
feed's subjects alone, :func:`turf_common.bus.streams.ensure_feed_stream`), every durable consumer with exactly the
configuration its service binds to (:func:`turf_common.bus.consumers.consumer_config`), retires outdated ones, and
last the clock's KV bucket, which the services wait for (:func:`turf_common.bus.clock_kv`). Each service's NATS user
may then only read its own consumers (:mod:`turfwar.natsauth`)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import structlog
from nats.js.errors import NotFoundError

from turf_common.bus import jetstream, make_broker, retire_consumers
from turf_common.bus.consumers import consumer_config
from turf_common.bus.streams import ensure_clock_kv, ensure_feed_stream, ensure_stream, feed_max_bytes, feed_stream

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class Durable:
    """A durable consumer: its ``name``, the ``user`` whose process reads it, its ``subjects``, the ``obsolete``
    names its earlier versions had (deleted at set-up), and whether it reads the ``feed`` stream rather than the
    event stream (its namesake on the event stream, where it was before, is deleted at set-up)."""

    name: str
    user: str
    subjects: Sequence[str]
    obsolete: Sequence[str] = field(default=())
    feed: bool = False


def durables() -> list[Durable]:
    """Every durable consumer of the stack, from the services' own tables (imported here, not at module load: the
    NATS permissions table needs only the names, :data:`turfwar.natsauth.CONSUMERS`)."""
    from turf_cards import entrypoints as cards
    from turf_claims import entrypoints as claims
    from turf_gateway.feed import log as feed_log
    from turf_gateway.feed import relay
    from turf_modes import entrypoints as modes
    from turf_notify import entrypoints as notify
    from turf_scoring import entrypoints as scoring

    return [Durable(claims.DURABLE, "claims", claims.CONSUMED, claims.OBSOLETE),
            Durable(cards.DURABLE, "cards", cards.CONSUMED),
            Durable(scoring.DURABLE, "scoring", scoring.CONSUMED),
            Durable(notify.DURABLE, "notify", notify.CONSUMED),
            Durable(modes.DURABLE, "modes", modes.CONSUMED),
            Durable(notify.MEDALS_DURABLE, "notify", notify.MEDALS_CONSUMED),
            Durable(feed_log.DURABLE, "gateway", relay.feed_subjects(), feed=True)]


async def set_up(nats_url: str, stream: str, replicas: int = 1, *, max_bytes: int) -> None:
    """Declare the bus (module docstring) with the set-up user's ``nats_url``; idempotent, run at every start. A
    consumer made for other subjects is recreated and reads its stream from the start again (its handlers are
    idempotent); one whose other settings differ is updated in place. ``max_bytes``: the event stream's limit (the
    feed stream's is :func:`~turf_common.bus.streams.feed_max_bytes` of it)."""
    from turf_gateway.feed import relay

    broker = make_broker(nats_url, "bus-setup", observe=False)
    await broker.connect()
    try:
        await ensure_stream(broker, stream, replicas, max_bytes=max_bytes)
        await ensure_feed_stream(broker, stream, relay.feed_subjects(), replicas, max_bytes=feed_max_bytes(max_bytes))
        js = jetstream(broker)
        for d in durables():
            on = feed_stream(stream) if d.feed else stream
            if d.feed:
                # the feed log's durable read the event stream before; there it would stay pending for
                # ever (wait_idle counts it). The gateway's migration 0006 emptied the rows it had numbered.
                with contextlib.suppress(NotFoundError):
                    await js.delete_consumer(stream, d.name)
                    log.info("consumer_retired", consumer=d.name, stream=stream)
            await retire_consumers(js, on, d.name, d.subjects, d.obsolete)
            await js.add_consumer(on, consumer_config(d.name, d.subjects))
        await ensure_clock_kv(broker, stream, replicas)   # last: the services wait for it
        log.info("bus_set_up", stream=stream, consumers=[d.name for d in durables()])
    finally:
        await broker.stop()


def main() -> None:
    """``python -m turfwar.bussetup`` (compose's ``bus-setup`` one-shot and Kubernetes' ``bus-setup`` Job, both in
    the backup image, which has this package): the settings' stream with ``TURF_NATS_URL``, the set-up user's."""
    import asyncio

    from turf_common.logs import configure
    from turf_common.settings import Settings

    s = Settings()
    if not s.nats_url:
        raise SystemExit("TURF_NATS_URL is not set (the set-up user's, admin)")
    configure("bus-setup", s.log_level)
    asyncio.run(set_up(s.nats_url, s.stream, s.stream_replicas, max_bytes=s.stream_max_bytes))


if __name__ == "__main__":
    main()
