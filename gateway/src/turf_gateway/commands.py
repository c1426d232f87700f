"""Asking a service over NATS, the one way the gateway does it (FastStream's request, through turf_common.bus): the
request carries the trace context, no answer is 503 ``unavailable`` (BusError, answered by errors.install), and a
refusal becomes the API error with its rule code (R29)."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from turf_common import bus
from turf_common.contracts.base import Message, Refusal
from turf_gateway.errors import ApiError

M = TypeVar("M", bound=Message)


async def ask(state: Any, subject: str, msg: Message | bytes, timeout: float = 15.0) -> dict[str, Any]:
    """The reply as a JSON object, for routes that pass most of it on as it is. Raises ApiError on a refusal,
    BusError when nobody answers in ``timeout`` seconds."""
    out: dict[str, Any] = json.loads(await bus.ask_raw(state.broker, subject, msg, timeout))
    if out.get("ok") is False:
        raise ApiError(out["reason"], out["message"])
    return out


async def ask_model(state: Any, subject: str, msg: Message, reply: type[M], timeout: float = 5.0) -> M:
    """The reply decoded into ``reply``. Raises ApiError on a refusal, BusError when nobody answers."""
    out = await bus.ask(state.broker, subject, msg, reply, timeout)
    if isinstance(out, Refusal):
        raise ApiError(out.reason, out.message)
    return out
