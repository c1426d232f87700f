"""Ports of the clock service: where its state lives (the NATS KV entry every process reads), the log of boundaries
emitted with their outbox; the outbox relay that sends committed events on is
:class:`turf_common.outbox.OutboxFlush`."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Protocol

from turf_common.contracts.base import Event
from turf_common.contracts.clock import ClockState, SetSeasons


class ClockStore(Protocol):
    """The clock's :class:`ClockState`, the one entry every service's game clock reads and watches."""

    async def load(self) -> ClockState | None:
        """The stored state; None when there is none yet or it cannot be read."""
        ...

    async def save(self, state: ClockState) -> None: ...

    async def load_seasons(self) -> str | None:
        """The catalog of seasons stored (the JSON of :class:`SetSeasons`); None before the first."""
        ...

    async def save_seasons(self, catalog: SetSeasons) -> None:
        """Store the catalog where every process's :class:`turf_common.seasonbook.SeasonBook` reads it."""
        ...


class BoundaryTx(Protocol):
    """One transaction over the boundary log: what it stages is committed together with the moved cursor."""

    async def emitted_upto(self) -> datetime | None:
        """The instant every boundary up to which has been emitted (None before the first emission). Held until
        the transaction ends, so two emitters never emit the same boundary."""
        ...

    async def stage(self, subject: str, event: Event) -> None:
        """Queue ``event`` for publication on ``subject`` once the transaction commits (the outbox)."""
        ...

    async def advance(self, upto: datetime) -> None:
        """Move the cursor to ``upto``."""
        ...


class BoundaryLog(Protocol):
    def transaction(self) -> AbstractAsyncContextManager[BoundaryTx]:
        """Commits on a clean exit, rolls back on an exception."""
        ...

