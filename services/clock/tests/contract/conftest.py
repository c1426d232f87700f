"""The boundary log's contract: every case runs on the memory fake (turf_clock.testing.MemoryOutbox) and
on the PostgreSQL log with the outbox relay (adapters/boundaries.py, turf_common.outbox). One embedded PostgreSQL
per session, migrated once with the service's Alembic migrations; each case starts on empty tables."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from clock_backends import Outbox
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.support.pg import emptied, migrated_engine
from turf_clock.adapters import tables as t
from turf_clock.adapters.boundaries import SqlBoundaryLog
from turf_clock.bootstrap import MIGRATIONS
from turf_clock.testing import MemoryOutbox
from turf_common.outbox import OutboxRelay
from turf_common.testing import RecordingPublisher


@pytest.fixture(scope="session")
async def clock_engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[AsyncEngine]:
    async with migrated_engine(tmp_path_factory.mktemp("clock-contract"), MIGRATIONS, t.SCHEMA) as engine:
        yield engine


@pytest.fixture(params=["memory", "postgres"])
async def outbox(request: pytest.FixtureRequest, clock_engine: AsyncEngine) -> Outbox:
    if request.param == "memory":
        mem = MemoryOutbox()
        return Outbox(mem, mem, lambda: [(s, e.event_id) for s, e in mem.published])
    engine = await emptied(clock_engine, t.metadata)
    bus = RecordingPublisher()
    return Outbox(SqlBoundaryLog(engine), OutboxRelay(engine, t.outbox, bus), lambda: [(s, m) for s, _, m in bus.raw])
