"""The gateway outbox's publisher (R30): its rows are events for the stream (``player.*``, ``correction.applied``)
and the mail requests staged with a token (``notify.mail``, :func:`turf_common.outbox.stage_command`), which are asked
of the notify service instead. A request that is not answered fails the relay's flush: the rows stay unsent, and the
sweep asks again (notify queues each ``command_id`` once)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from turf_common.contracts import subjects
from turf_common.contracts.notify import Done, QueueMail
from turf_gateway.ports import Services

#: outbox subjects that are commands to a service, with the model each row holds
COMMANDS = {subjects.NOTIFY_MAIL: QueueMail}
ASK_S = 15.0   # notify commits the message to its queue before it answers


class Events(Protocol):
    """The event stream's publisher (:class:`turf_common.bus.EventPublisher`)."""

    async def publish(self, subject: str, data: bytes, msg_id: str, traceparent: str | None = None) -> None: ...

    async def publish_many(self, rows: Sequence[tuple[str, bytes, str, str | None]],
                           timeout: float = 5.0) -> None: ...


class OutboxBus:
    """:class:`turf_common.outbox.StreamPublisher` over the event stream and the services' commands."""

    def __init__(self, events: Events, services: Services) -> None:
        self.events, self.services = events, services

    async def publish(self, subject: str, data: bytes, msg_id: str, traceparent: str | None = None) -> None:
        if (model := COMMANDS.get(subject)) is not None:
            await self.services.ask(subject, model.model_validate_json(data), Done, ASK_S)
        else:
            await self.events.publish(subject, data, msg_id, traceparent)

    async def publish_many(self, rows: Sequence[tuple[str, bytes, str, str | None]], timeout: float = 5.0) -> None:
        for row in rows:
            if row[0] in COMMANDS:
                await self.publish(*row)
        if events := [r for r in rows if r[0] not in COMMANDS]:
            await self.events.publish_many(events, timeout)
