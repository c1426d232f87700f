"""The notify store's contract: every case runs on the memory fake (turf_notify.testing) and on the
PostgreSQL store (adapters/store.py). One embedded PostgreSQL per session, migrated once with the service's Alembic
migrations; each case starts on empty tables."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.support.pg import emptied, migrated_engine
from turf_notify.adapters import tables as t
from turf_notify.adapters.store import SqlNotifyStore
from turf_notify.bootstrap import MIGRATIONS
from turf_notify.ports import NotifyStore
from turf_notify.testing import MemoryNotifyStore


@pytest.fixture(scope="session")
async def notify_engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[AsyncEngine]:
    async with migrated_engine(tmp_path_factory.mktemp("notify-contract"), MIGRATIONS, t.SCHEMA) as engine:
        yield engine


@pytest.fixture(params=["memory", "postgres"])
async def store(request: pytest.FixtureRequest, notify_engine: AsyncEngine) -> NotifyStore:
    if request.param == "memory":
        return MemoryNotifyStore()
    return SqlNotifyStore(await emptied(notify_engine, t.metadata))
