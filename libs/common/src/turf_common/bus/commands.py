"""A service's commands as one table: each row a subject, the contract it takes, what it answers and the use case
that answers it; :func:`serve` declares every row as the same typed subscriber in the service's queue group (its
title the subject), instead of one hand-written stanza per subject.

The subscriber's handler carries the row's types as its annotations: FastStream decodes and validates the request
with the first and the reply with the second, and the AsyncAPI document (``turfwar docs asyncapi``) reads both."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from faststream.nats import NatsRouter
from pydantic import BaseModel

H = TypeVar("H")


@dataclass(frozen=True)
class Command(Generic[H]):
    """One command subject: ``takes`` its request contract (None: the body is not read, and the use case is called
    with None), ``answers`` the reply (a model or a union of models, :class:`~turf_common.contracts.base.Refusal`
    among them where the use case may refuse), ``call`` the use case on the service's handlers ``H``; ``workers``
    how many run at a time (FastStream's default: one)."""

    subject: str
    takes: type[BaseModel] | None
    answers: Any
    call: Callable[[H, Any], Awaitable[Any]]
    workers: int | None = None
    description: str | None = None

    def handler(self, h: H) -> Callable[..., Awaitable[Any]]:
        call = self.call
        if self.takes is None:
            async def ignoring() -> Any:
                return await call(h, None)

            ignoring.__annotations__ = {"return": self.answers}
            return ignoring

        async def handle(msg: Any) -> Any:
            return await call(h, msg)

        handle.__annotations__ = {"msg": self.takes, "return": self.answers}
        return handle


def serve(r: NatsRouter, h: H, queue: str, commands: Iterable[Command[H]]) -> None:
    """Subscribe ``r`` to every command of ``commands`` in queue group ``queue``, each answered by its use case on
    ``h``. ``h`` is only reached when a command comes (the AsyncAPI document builds routers with none)."""
    for c in commands:
        r.subscriber(c.subject, queue=queue, max_workers=c.workers, title=c.subject,
                     description=c.description)(c.handler(h))
