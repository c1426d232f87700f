"""Request/reply: a command to a service's queue group, its reply decoded (or the service's :class:`Refusal`)."""

from __future__ import annotations

from typing import TypeVar

import nats
from faststream.nats import NatsBroker

from turf_common import tracing
from turf_common.bus.broker import BusError
from turf_common.contracts.base import Message, Refusal, decode_reply
from turf_common.txguard import no_transaction

M = TypeVar("M", bound=Message)


async def ask(broker: NatsBroker, subject: str, msg: Message, reply: type[M],
              timeout: float = 5.0) -> M | Refusal:
    """Send a command with the current trace context and decode its reply: ``reply`` or the service's
    :class:`Refusal`. Raises :class:`BusError` when nobody answers in ``timeout`` seconds."""
    return decode_reply(await ask_raw(broker, subject, msg, timeout), reply)  # type: ignore[return-value]


async def ask_raw(broker: NatsBroker, subject: str, msg: Message | bytes, timeout: float = 5.0) -> bytes:
    """As :func:`ask`, the reply's JSON undecoded (the gateway forwards most replies as they are)."""
    no_transaction(subject)
    body = msg if isinstance(msg, bytes) else msg.model_dump_json().encode()
    try:
        resp = await broker.request(body, subject, timeout=timeout, headers=tracing.outgoing_headers())
    except (nats.errors.NoRespondersError, nats.errors.TimeoutError, TimeoutError) as e:
        raise BusError(f"{subject}: {type(e).__name__}") from e
    return bytes(resp.body)
