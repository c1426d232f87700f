"""The stream publisher (:class:`turf_common.outbox.StreamPublisher`) the outbox relay sends through: committed rows to
the event stream, de-duplicated by ``Nats-Msg-Id``."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from faststream.nats import NatsBroker

from turf_common import tracing
from turf_common.bus.broker import jetstream


def _headers(msg_id: str, traceparent: str | None) -> dict[str, str]:
    headers = {"Nats-Msg-Id": msg_id}
    tp = traceparent or tracing.current_traceparent()
    if tp:
        headers["traceparent"] = tp
    return headers


class EventPublisher:
    """Publishes one committed outbox row to the stream with ``Nats-Msg-Id`` = event id (the outbox relay's port).
    JetStream acknowledges each publish, so a row is marked sent only once the stream holds it; the stream drops a
    re-publish inside its duplicate window."""

    def __init__(self, broker: NatsBroker, stream: str) -> None:
        self.broker, self.stream = broker, stream

    async def publish(self, subject: str, data: bytes, msg_id: str, traceparent: str | None = None) -> None:
        await jetstream(self.broker).publish(subject, data, stream=self.stream,
                                             headers=_headers(msg_id, traceparent))

    async def publish_many(self, rows: Sequence[tuple[str, bytes, str, str | None]], timeout: float = 5.0) -> None:
        """Several rows ``(subject, data, msg_id, traceparent)`` in order, their acknowledgements awaited together
        (one round trip for an outbox flush instead of one per row). The stream stores them in the
        order sent (one connection); raises if any is not acknowledged within ``timeout`` seconds, and then the
        caller sends them all again (the stream drops what it already has, by ``Nats-Msg-Id``)."""
        js = jetstream(self.broker)
        acks = []
        for subject, data, msg_id, traceparent in rows:
            acks.append(await js.publish_async(subject, data, stream=self.stream,
                                               headers=_headers(msg_id, traceparent)))
        try:
            await asyncio.wait_for(asyncio.gather(*acks), timeout)
        except BaseException:
            for a in acks:
                a.cancel()
            raise
