"""The gateway's ports: what its use cases and routes need from the outside, as Protocols. The adapters
(:mod:`turf_gateway.adapters`) implement them over NATS and PostgreSQL; :mod:`turf_gateway.bootstrap` wires them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from turf_common.contracts.base import Message

M = TypeVar("M", bound=Message)


class Services(Protocol):
    """Requests to the services (claims, cards, scoring, notify, clock), typed both ways."""

    async def ask(self, subject: str, msg: Message, reply: type[M], timeout: float = 5.0) -> M:
        """The reply to ``msg`` on ``subject``, decoded into ``reply``. Raises ApiError on the service's refusal
        (its rule code, R29), BusError when nobody answers in ``timeout`` seconds."""
        ...


@dataclass(frozen=True)
class Caller:
    """The signed-in caller of a request: player id, role (player | organizer), status (R27), display name."""

    id: str
    role: str
    status: str
    display_name: str


class Limiter(Protocol):
    """Rate limits by name and who (``TURF_RATE_LIMITS``); over one: ApiError 429 ``rate_limited``."""

    async def hit(self, name: str, who: str, *more: tuple[str, str]) -> None: ...

    async def note(self, name: str, who: str, *more: tuple[str, str]) -> None: ...

    async def check(self, name: str, who: str, *more: tuple[str, str]) -> None: ...


class IdempotencyKeys(Protocol):
    async def same_body_or_refuse(self, route: str, caller: str, key: str, body: Any) -> None:
        """Remember ``body`` as the first of ``caller``'s ``key`` on ``route``; ApiError 422 ``invalid_input``
        when the key was first used with another body (issue 15)."""
        ...
