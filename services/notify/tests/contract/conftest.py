"""The notify store's contract (issue 28): every case runs on the memory fake (turf_notify.testing) and on the
PostgreSQL store (adapters/store.py). One embedded PostgreSQL per session, migrated once with the service's Alembic
migrations; each case starts on empty tables."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.support.pg import migrated_postgres, truncate_all
from turf_common.db import make_engine
from turf_notify.adapters import tables as t
from turf_notify.adapters.store import SqlNotifyStore
from turf_notify.bootstrap import MIGRATIONS
from turf_notify.ports import NotifyStore
from turf_notify.testing import MemoryNotifyStore


@pytest.fixture(scope="session")
def notify_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with migrated_postgres(tmp_path_factory.mktemp("notify-contract"), MIGRATIONS, t.SCHEMA) as url:
        yield url


@pytest.fixture(scope="session")
async def notify_engine(notify_database: str) -> AsyncIterator[AsyncEngine]:
    engine = make_engine(notify_database, pool_size=2, max_overflow=2)
    yield engine
    await engine.dispose()


@pytest.fixture(params=["memory", "postgres"])
async def store(request: pytest.FixtureRequest, notify_engine: AsyncEngine) -> NotifyStore:
    if request.param == "memory":
        return MemoryNotifyStore()
    async with notify_engine.begin() as conn:
        await conn.execute(truncate_all(t.metadata))
    return SqlNotifyStore(notify_engine)
