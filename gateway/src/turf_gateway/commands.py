"""Asking a service over NATS, the one way the gateway does it: the request carries the trace context, no answer
is 503 ``unavailable`` (BusError), and a refusal becomes the API error with its rule code (R29)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from turf_gateway.errors import ApiError


async def ask(state: Any, subject: str, msg: BaseModel | bytes, timeout: float = 15.0) -> dict[str, Any]:
    data = msg if isinstance(msg, bytes) else msg.model_dump_json().encode()
    out: dict[str, Any] = json.loads(await state.bus.request_raw(subject, data, timeout))
    if out.get("ok") is False:
        raise ApiError(out["reason"], out["message"])
    return out
