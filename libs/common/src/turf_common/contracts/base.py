"""Wire format shared by every subject: frozen pydantic models with a schema version."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from turf_common.rules.refusals import RefusalCode


class Message(BaseModel):
    model_config = ConfigDict(frozen=True)
    schema_version: int = 1


class Event(Message):
    """Base of every event. ``event_id`` doubles as the JetStream ``Nats-Msg-Id``; consumers apply each id once."""

    event_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    occurred_at: AwareDatetime
    # W3C trace context of the command that caused the event (set by the outbox; see turf_common.tracing)
    traceparent: str | None = None


class Refusal(Message):
    """A command refused: ``reason`` is a rule code of RULINGS.md (R29) or a generic code, ``message`` a sentence."""

    ok: Literal[False] = False
    reason: RefusalCode
    message: str


def decode_reply(raw: str | bytes, model: type[Message]) -> Message:
    """A stored or received reply: a :class:`Refusal` when it says ``"ok": false``, else ``model``.
    Used where a command's first answer is kept (idempotency keys, sagas) and replayed to a retry."""
    import json

    data = json.loads(raw)
    if isinstance(data, dict) and data.get("ok") is False:
        return Refusal.model_validate(data)
    return model.model_validate(data)


class Health(Message):
    service: str
    ok: bool = True
    detail: dict[str, str] = Field(default_factory=dict)


class Ping(Message):
    pass


def utc_iso(dt: datetime) -> str:
    return dt.isoformat()
