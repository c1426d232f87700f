"""The boundary log in PostgreSQL (schema ``clock``): a one-row cursor (the instant emitted up to) and the outbox."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from turf_clock.adapters import tables as t
from turf_common.contracts.base import Event
from turf_common.outbox import stage


class SqlBoundaryTx:
    """:class:`turf_clock.ports.BoundaryTx` on one connection inside its transaction."""

    def __init__(self, conn: AsyncConnection) -> None:
        self.conn = conn

    async def emitted_upto(self) -> datetime | None:
        # FOR UPDATE: a second emitter (another process) waits here until this transaction ends
        return (await self.conn.execute(select(t.cursor.c.emitted_upto).where(t.cursor.c.id == 1)
                                        .with_for_update())).scalar_one_or_none()

    async def stage(self, subject: str, event: Event) -> None:
        await stage(self.conn, t.outbox, subject, event)

    async def advance(self, upto: datetime) -> None:
        await self.conn.execute(pg_insert(t.cursor).values(id=1, emitted_upto=upto)
                                .on_conflict_do_update(index_elements=["id"], set_={"emitted_upto": upto}))


class SqlBoundaryLog:
    """:class:`turf_clock.ports.BoundaryLog` over the service's engine."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[SqlBoundaryTx]:
        async with self.engine.begin() as conn:
            yield SqlBoundaryTx(conn)
