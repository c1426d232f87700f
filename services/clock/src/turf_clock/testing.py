"""The clock service's fakes, for unit tests (no NATS, no PostgreSQL): the KV entry, and the boundary log with its
relay (one object is both the outbox and the publisher, as staged events only become rows on commit)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime

from turf_common.contracts.base import Event
from turf_common.contracts.clock import ClockState, SetSeasons


class MemoryStore:
    """The KV entry."""

    def __init__(self, state: ClockState | None = None) -> None:
        self.state = state
        self.seasons: str | None = None

    async def load(self) -> ClockState | None:
        return self.state

    async def save(self, state: ClockState) -> None:
        self.state = state

    async def load_seasons(self) -> str | None:
        return self.seasons

    async def save_seasons(self, catalog: SetSeasons) -> None:
        self.seasons = catalog.model_dump_json()


class MemoryTx:
    def __init__(self, cursor: datetime | None) -> None:
        self.cursor = cursor
        self.staged: list[tuple[str, Event]] = []

    async def emitted_upto(self) -> datetime | None:
        return self.cursor

    async def stage(self, subject: str, event: Event) -> None:
        self.staged.append((subject, event))

    async def advance(self, upto: datetime) -> None:
        self.cursor = upto


class MemoryOutbox:
    """The boundary log and the relay: staged events become outbox rows when their transaction commits (a raising
    block keeps nothing), and ``flush`` publishes the unpublished rows in order."""

    def __init__(self) -> None:
        self.cursor: datetime | None = None
        self.rows: list[tuple[str, Event]] = []
        self.published: list[tuple[str, Event]] = []
        self.fail_flushes = 0

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[MemoryTx]:
        tx = MemoryTx(self.cursor)
        yield tx
        self.cursor = tx.cursor
        self.rows.extend(tx.staged)

    async def flush(self) -> int:
        if self.fail_flushes:
            self.fail_flushes -= 1
            raise ConnectionError("NATS is down")
        new = self.rows[len(self.published):]
        self.published.extend(new)
        return len(new)
