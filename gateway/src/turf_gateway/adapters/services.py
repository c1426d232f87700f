"""Requests to the services over NATS (FastStream's request, through :mod:`turf_common.bus`), each reply decoded
once into its contract model (``turf_common.contracts``): no untyped reply crosses into the routes or use cases.
No answer is 503 ``unavailable`` (BusError, answered by errors.install); a refusal becomes the API error with its
rule code (R29)."""

from __future__ import annotations

import functools
from typing import Annotated, Any, TypeVar, cast

from pydantic import Field, TypeAdapter

from turf_common import bus
from turf_common.contracts.base import Message, Refusal, decode_reply
from turf_gateway.api.errors import ApiError

M = TypeVar("M", bound=Message)


@functools.cache
def _reply_or_refusal(reply: type[Message]) -> TypeAdapter[Any] | None:
    """One JSON pass for ``reply | Refusal`` when ``reply`` says ``ok: true`` (told apart by ``ok``); None when it
    does not (decoded by :func:`decode_reply`)."""
    if "ok" not in reply.model_fields:
        return None
    return TypeAdapter(cast(Any, Annotated[reply | Refusal, Field(discriminator="ok")]))


def decode(raw: bytes, reply: type[M]) -> M:
    """``raw`` as ``reply``. Raises ApiError with the service's refusal."""
    adapter = _reply_or_refusal(reply)
    out = adapter.validate_json(raw) if adapter is not None else decode_reply(raw, reply)
    if isinstance(out, Refusal):
        raise ApiError(out.reason, out.message)
    return cast(M, out)


class NatsServices:
    """The :class:`~turf_gateway.ports.Services` port over the gateway's NATS connection."""

    def __init__(self, broker: Any) -> None:
        self.broker = broker

    async def ask(self, subject: str, msg: Message, reply: type[M], timeout: float = 5.0) -> M:
        """Send ``msg`` (with the trace context) and decode the answer. Raises ApiError on a refusal, BusError when
        nobody answers in ``timeout`` seconds."""
        return decode(await bus.ask_raw(self.broker, subject, msg, timeout), reply)
