"""The modes store's contract: every case runs on the memory fake (turf_modes.testing) and on the PostgreSQL store
(adapters/store.py). One embedded PostgreSQL per session, migrated once with the service's Alembic migrations; each
case starts on empty tables."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.support.pg import emptied, migrated_engine
from turf_modes.adapters import tables as t
from turf_modes.adapters.store import SqlModesStore
from turf_modes.bootstrap import MIGRATIONS
from turf_modes.ports import ModesStore
from turf_modes.testing import MemoryModesStore


@pytest.fixture(scope="session")
async def modes_engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[AsyncEngine]:
    async with migrated_engine(tmp_path_factory.mktemp("modes-contract"), MIGRATIONS, t.SCHEMA) as engine:
        yield engine


@pytest.fixture(params=["memory", "postgres"])
async def store(request: pytest.FixtureRequest, modes_engine: AsyncEngine) -> ModesStore:
    if request.param == "memory":
        return MemoryModesStore()
    return SqlModesStore(await emptied(modes_engine, t.metadata))
