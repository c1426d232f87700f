"""The stream publisher (:class:`turf_common.outbox.StreamPublisher`) the outbox relay sends through: committed rows to
the event stream, de-duplicated by ``Nats-Msg-Id``."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from faststream.nats import NatsBroker
from nats.js.errors import APIError

from turf_common import tracing
from turf_common.bus.broker import jetstream


def _headers(msg_id: str, traceparent: str | None) -> dict[str, str]:
    headers = {"Nats-Msg-Id": msg_id}
    tp = traceparent or tracing.current_traceparent()
    if tp:
        headers["traceparent"] = tp
    return headers


#: JetStream's answer to a publish whose ``Nats-Msg-Id`` another publish is still storing (a clustered stream): 409
IN_PROCESS = 10158
IN_PROCESS_TRIES = 5


async def _once_stored(publish: Callable[[], Awaitable[Any]]) -> Any:
    """``publish()``, again (after 50, 100, 150, 200 ms) while the stream answers that the same message id is still
    being stored by another publisher: once that one is stored, ours is the duplicate the stream drops. Two
    publishers of one event id at once are by design: scoring answers the organizer's verify and applies the same
    event from the stream, each publishing the same ``score.updated`` (R25); a clustered stream refused the second
    with 409 and the organizer's verify answered 503 although it was done (seen in the compose deployment)."""
    for attempt in range(1, IN_PROCESS_TRIES + 1):
        try:
            return await publish()
        except APIError as e:
            if e.err_code != IN_PROCESS or attempt == IN_PROCESS_TRIES:
                raise
            await asyncio.sleep(0.05 * attempt)


class EventPublisher:
    """Publishes one committed outbox row to the stream with ``Nats-Msg-Id`` = event id (the outbox relay's port).
    JetStream acknowledges each publish, so a row is marked sent only once the stream holds it; the stream drops a
    re-publish inside its duplicate window."""

    def __init__(self, broker: NatsBroker, stream: str) -> None:
        self.broker, self.stream = broker, stream

    async def publish(self, subject: str, data: bytes, msg_id: str, traceparent: str | None = None) -> None:
        await _once_stored(lambda: jetstream(self.broker).publish(subject, data, stream=self.stream,
                                                                  headers=_headers(msg_id, traceparent)))

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
        except APIError as e:
            if e.err_code != IN_PROCESS:
                raise
            # one of them is being stored by another publisher: each again, in order, until the stream has it
            for subject, data, msg_id, traceparent in rows:
                await self.publish(subject, data, msg_id, traceparent)
        except BaseException:
            for a in acks:
                a.cancel()
            raise
