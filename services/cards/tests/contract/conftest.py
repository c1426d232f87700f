"""The cards store's contract (issue 28): every case runs on the memory fake (turf_cards.testing) and on the
PostgreSQL store (adapters/store.py). One embedded PostgreSQL per session, migrated once with the service's Alembic
migrations; each case starts on empty tables."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.support.pg import migrated_postgres, truncate_all
from turf_cards.adapters import tables as t
from turf_cards.adapters.store import SqlCardsStore
from turf_cards.bootstrap import MIGRATIONS
from turf_cards.ports import CardsStore
from turf_cards.testing import MemoryCardsStore
from turf_common.db import make_engine


@pytest.fixture(scope="session")
def cards_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with migrated_postgres(tmp_path_factory.mktemp("cards-contract"), MIGRATIONS, t.SCHEMA) as url:
        yield url


@pytest.fixture(scope="session")
async def cards_engine(cards_database: str) -> AsyncIterator[AsyncEngine]:
    engine = make_engine(cards_database, pool_size=2, max_overflow=2)
    yield engine
    await engine.dispose()


@pytest.fixture(params=["memory", "postgres"])
async def store(request: pytest.FixtureRequest, cards_engine: AsyncEngine) -> CardsStore:
    if request.param == "memory":
        return MemoryCardsStore()
    async with cards_engine.begin() as conn:
        await conn.execute(truncate_all(t.metadata))
    return SqlCardsStore(cards_engine)
